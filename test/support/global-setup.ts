import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { StartupError } from '../../src/common/errors/startup-error';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { MIGRATIONS_GLOB } from '../../src/database/migrations-path';
import { nameAppBuild } from './app-build';
import { prepareStatsDir } from './openapi/stats-summary';
import { adminQuery, databaseUrl, TEST_DB_PREFIX } from './test-db';

/**
 * Starts the test PostgreSQL (embedded unless DATABASE_URL is set), migrates a template
 * database once, and publishes the server as TEST_PG_URL for the test files.
 */
export default async function globalSetup(): Promise<void> {
  // CI shows which runtime really ran the tests (the pinned devDependency `node`, not the system's).
  console.log(`\nTests run on Node.js ${process.version}`);
  prepareStatsDir();
  if (process.env.DATABASE_URL) {
    process.env.TEST_PG_URL = process.env.DATABASE_URL;
  } else {
    const server = await startEmbeddedPostgres({
      dir: process.env.EMBEDDED_PG_TEST_DIR ?? '.data/pg-test',
      port: Number(process.env.EMBEDDED_PG_TEST_PORT ?? 54330),
      dirSetting: 'EMBEDDED_PG_TEST_DIR',
      portSetting: 'EMBEDDED_PG_TEST_PORT',
    }).catch(exitOnStartupError);
    (globalThis as { __EMBEDDED_PG__?: unknown }).__EMBEDDED_PG__ = server;
    process.env.TEST_PG_URL = `${server.baseUrl}/postgres`;
    // The embedded test server is ours alone: clear databases an interrupted run left behind.
    await dropLeftovers();
  }
  const template = `${TEST_DB_PREFIX}tpl_${process.pid}_${Date.now()}`;
  process.env.TEST_PG_TEMPLATE = template;
  // Compiled on first use by a test that spawns the service (spawn-app.ts).
  nameAppBuild(template);
  await adminQuery(`CREATE DATABASE "${template}"`);
  const ds = new DataSource({
    type: 'postgres',
    url: databaseUrl(template),
    migrations: [MIGRATIONS_GLOB],
    uuidExtension: 'pgcrypto',
  });
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();
}

/** A StartupError (e.g. a folder the `postgres` user cannot enter) ends the run with its sentence. */
function exitOnStartupError(err: unknown): never {
  if (!(err instanceof StartupError)) throw err;
  console.error(`\n${err.message}\n`);
  process.exit(1);
}

/** Test databases left by an interrupted run on the same server. */
async function dropLeftovers(): Promise<void> {
  const client = new Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  const { rows } = await client.query<{ datname: string }>(
    'SELECT datname FROM pg_database WHERE datname LIKE $1',
    [`${TEST_DB_PREFIX}%`],
  );
  await client.end();
  for (const { datname } of rows)
    await adminQuery(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
}
