import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import { Clock } from '../../src/common/clock/clock';
import { configureApp } from '../../src/app.setup';
import type { OpenApiDocument, ResponseValidator } from './openapi/response-validator';
import { validateResponses, validatorOf } from './openapi/validation-hook';
import { adminQuery, databaseUrl, templateDb, TEST_DB_PREFIX } from './test-db';
import { TEST_AUTH_SECRET, TEST_ENCRYPTION_KEY } from './test-env';

export { TEST_AUTH_SECRET, TEST_ENCRYPTION_KEY };

export interface TestApp {
  app: INestApplication;
  /** supertest bound to the in-process server. */
  http: TestAgent;
  db: DataSource;
  dbName: string;
  /** MAIL_DIR of this app: where its mails go as `.eml` files when SMTP_URL is not set. */
  mailDir: string;
  close(): Promise<void>;
}

/**
 * Boots the real AppModule in-process on a fresh database cloned from the migrated template.
 * `env` overrides configuration (e.g. OPENAI_BASE_URL of a local server).
 */
export async function createTestApp(
  env: Record<string, string | undefined> = {},
  overrides: { clock?: Clock } = {},
): Promise<TestApp> {
  const dbName = `${TEST_DB_PREFIX}${randomBytes(6).toString('hex')}`;
  // Mails without SMTP_URL become .eml files: one folder per app, removed with it.
  const mailDir = join(tmpdir(), `mail-${dbName}`);
  await adminQuery(`CREATE DATABASE "${dbName}" TEMPLATE "${templateDb()}"`);
  const moduleRef = await Test.createTestingModule({
    imports: [
      AppModule.forRoot({
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        DATABASE_URL: databaseUrl(dbName),
        DB_POOL_SIZE: '4',
        AUTH_SECRET: TEST_AUTH_SECRET,
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        AUTH_RATE_LIMIT_PER_MINUTE: '10000',
        MAIL_DIR: mailDir,
        // Queued jobs (mails, runs) start within half a second (the minimum), not the default 2 s
        // poll: a test waiting for a mail or a run does not idle.
        JOBS_POLL_INTERVAL_SECONDS: '0.5',
        ...env,
      }),
    ],
  })
    .overrideProvider(Clock)
    .useValue(overrides.clock ?? new Clock())
    .compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({
    rawBody: true,
    logger: false,
  });
  // First middleware: every answer of this app is checked against its live OpenAPI document.
  const checks: { validator?: ResponseValidator } = {};
  app.use(validateResponses(() => checks.validator));
  configureApp(app);
  await app.init();
  const doc = await request(app.getHttpServer()).get('/api/docs-json').expect(200);
  checks.validator = validatorOf(doc.body as OpenApiDocument);
  return {
    app,
    http: request(app.getHttpServer()),
    db: app.get(DataSource),
    dbName,
    mailDir: env.MAIL_DIR ?? mailDir,
    close: async () => {
      await app.close();
      await adminQuery(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      await rm(mailDir, { recursive: true, force: true });
    },
  };
}
