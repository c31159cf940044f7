import type { DynamicModule, INestApplicationContext, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, getMetadataArgsStorage } from 'typeorm';
import { AuditModule } from '../../src/audit/audit.module';
import { Clock, ClockModule } from '../../src/common/clock/clock';
import { ConfigSliceModule } from '../../src/config/config-slice.module';
import { DatabaseModule } from '../../src/database/database.module';
import { MetricsModule } from '../../src/metrics/metrics.module';
import { TEST_AUTH_SECRET, TEST_ENCRYPTION_KEY } from './test-env';
import { adminQuery, databaseUrl, templateDb, TEST_DB_PREFIX } from './test-db';

/** The modules under test booted without HTTP: their services on the file's own database. */
export interface ModuleApp {
  /** The application context: `m.app.get(Service)`. */
  app: INestApplicationContext;
  db: DataSource;
  dbName: string;
  close(): Promise<void>;
}

/**
 * What every feature module finds in the whole app without importing it: the global modules of
 * AppModule that services use (configuration, the clock, metrics, audit) and TypeORM. The HTTP
 * side (error presenter and messages, shutdown middleware, guards) is left out: a module whose
 * controllers need it passes those modules too.
 */
function ground(
  env: Record<string, string | undefined>,
): (Type | DynamicModule | Promise<DynamicModule>)[] {
  return [
    ConfigSliceModule.forRoot(() => ({ ...process.env, ...env }), { ignoreEnvFile: true }),
    DatabaseModule,
    TypeOrmModule.forFeature(appEntities()),
    ClockModule,
    MetricsModule,
    AuditModule,
  ];
}

/**
 * The module tier: boots only `modules` (and the global ground of the app) on a fresh database
 * cloned from the migrated template, with the real configuration and lifecycle hooks (a module's
 * `onModuleInit`, the job queue's start at bootstrap, shutdown), and no HTTP server, guards or
 * OpenAPI document. For tests that call services directly; a test of a route boots the whole
 * app (`createTestApp`). `env` overrides configuration as in createTestApp.
 */
export async function bootModule(
  modules: (Type | DynamicModule)[],
  env: Record<string, string | undefined> = {},
  overrides: { clock?: Clock } = {},
): Promise<ModuleApp> {
  const dbName = `${TEST_DB_PREFIX}${randomBytes(6).toString('hex')}`;
  const drop = () => adminQuery(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE "${dbName}" TEMPLATE "${templateDb()}"`);
  let app: INestApplicationContext;
  try {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ...ground({
          NODE_ENV: 'test',
          LOG_LEVEL: 'silent',
          DATABASE_URL: databaseUrl(dbName),
          DB_POOL_SIZE: '4',
          AUTH_SECRET: TEST_AUTH_SECRET,
          ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
          JOBS_POLL_INTERVAL_SECONDS: '0.5',
          ...env,
        }),
        ...modules,
      ],
    })
      .overrideProvider(Clock)
      .useValue(overrides.clock ?? new Clock())
      .setLogger(silentLogger)
      .compile();
    app = await moduleRef.init();
  } catch (err) {
    // A module that does not boot (a missing provider) leaves no database behind.
    await drop();
    throw err;
  }
  return {
    app,
    db: app.get(DataSource),
    dbName,
    close: async () => {
      await app.close();
      await drop();
    },
  };
}

/**
 * Every entity of the app (each `*.entity.ts` under src), as the whole app registers them: a module's
 * entities relate to other modules' (a hold to its user), which TypeORM must know to build them.
 */
function appEntities(): Type[] {
  const src = join(__dirname, '../../src');
  for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' }))
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded for their decorators
    if (file.endsWith('.entity.ts')) require(join(src, file));
  return getMetadataArgsStorage()
    .tables.map((t) => t.target)
    .filter((target) => typeof target === 'function') as Type[];
}

const silentLogger = {
  log: () => undefined,
  error: () => undefined,
  warn: () => undefined,
  debug: () => undefined,
  verbose: () => undefined,
};
