import './tracing'; // first: OpenTelemetry patches http, express and pg before they load
import 'reflect-metadata';
import cluster from 'node:cluster';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { ConfigType } from '@nestjs/config';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { buildConfig } from './config/app.config';
import { appSettingsConfig } from './config/app-settings.config';
import { loadConfig } from './config/load-config';
import { StartupError } from './common/errors/startup-error';
import { drainLogs } from './common/logging/drain-logs';
import { stopEmbeddedDatabase } from './database/database.module';
import { runPrimary } from './runtime/primary';
import { logStartupSummary } from './startup-summary';

/** One server process: the only one with WEB_CONCURRENCY=1, else one of the primary's workers. */
async function bootstrap(started: number): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(), {
    rawBody: true,
    bufferLogs: true,
    // A failed start rejects (instead of exiting inside Nest), and Nest's own error log is
    // silenced: the catch below prints a StartupError's one sentence, or the stack of any other.
    abortOnError: false,
    logger: ['fatal'],
  });
  configureApp(app);
  const { port, baseUrl } = app.get<ConfigType<typeof appSettingsConfig>>(appSettingsConfig.KEY);
  await app.listen(port);
  // Buffered start-up lines first, then one line per concern (from one process of a cluster),
  // then the ready line last.
  app.flushLogs();
  if (cluster.isPrimary || cluster.worker?.id === 1) await logStartupSummary(app);
  await drainLogs();
  // A worker stays quiet: its primary prints the one ready line.
  if (cluster.isPrimary) {
    console.log(
      `API listening on port ${port} (${baseUrl}) after ${Date.now() - started} ms; docs at ${baseUrl}/api/docs`,
    );
  }

  // The DataSource closes in app.close(); the embedded server (if this process started it) after.
  const shutdown = async () => {
    await app.close();
    await stopEmbeddedDatabase();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
}

async function main(): Promise<void> {
  const started = Date.now();
  if (cluster.isPrimary) {
    // Validated here first (no side effects): a bad variable fails once, before any fork. With
    // workers, the primary resolves the development secrets once, so every worker reads the same.
    if (buildConfig(process.env).app.workers > 1) {
      return runPrimary(loadConfig(process.env), started);
    }
  }
  await bootstrap(started);
}

main().catch(async (err: unknown) => {
  console.error(err instanceof StartupError ? err.message : err);
  await stopEmbeddedDatabase().catch(() => undefined);
  process.exit(1);
});
