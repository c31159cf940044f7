import './tracing'; // first: OpenTelemetry patches http, express and pg before they load
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigService } from '@nestjs/config';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import type { AppConfig } from './config/app.config';
import { StartupError } from './common/errors/startup-error';
import { stopEmbeddedDatabase } from './database/database.module';

async function bootstrap(): Promise<void> {
  const started = Date.now();
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(), {
    rawBody: true,
    bufferLogs: true,
    // A failed start rejects (instead of exiting inside Nest), and Nest's own error log is
    // silenced: the catch below prints a StartupError's one sentence, or the stack of any other.
    abortOnError: false,
    logger: ['fatal'],
  });
  configureApp(app);
  const { port, baseUrl } = app.get(ConfigService<AppConfig, true>).get('app', { infer: true });
  await app.listen(port);
  console.log(
    `API listening on port ${port} (${baseUrl}) after ${Date.now() - started} ms; docs at ${baseUrl}/api/docs`,
  );

  // The DataSource closes in app.close(); the embedded server must stop after it.
  const shutdown = async () => {
    await app.close();
    await stopEmbeddedDatabase();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
}

bootstrap().catch(async (err: unknown) => {
  console.error(err instanceof StartupError ? err.message : err);
  await stopEmbeddedDatabase().catch(() => undefined);
  process.exit(1);
});
