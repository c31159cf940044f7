import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { nameAppBuild } from '../support/app-build';
import { freePort } from '../support/spawn-app';

/**
 * Starts the one PostgreSQL both instances share: embedded, in its own directory, on a free
 * port, with an empty `cluster` database (the first instance migrates it). Runs outside the
 * test sandbox because embedded-postgres is ESM-only. Published as CLUSTER_PG_URL.
 */
export default async function clusterGlobalSetup(): Promise<void> {
  const dir = resolve(__dirname, '..', '..', `.data/pg-cluster-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  process.env.CLUSTER_PG_DIR = dir;
  const server = await startEmbeddedPostgres({ dir, port: await freePort() });
  (globalThis as { __CLUSTER_PG__?: unknown }).__CLUSTER_PG__ = server;
  const admin = new Client({ connectionString: `${server.baseUrl}/postgres` });
  await admin.connect();
  try {
    await admin.query('CREATE DATABASE cluster');
  } finally {
    await admin.end();
  }
  process.env.CLUSTER_PG_URL = `${server.baseUrl}/cluster`;
  // The instances run the service compiled once for this run (test/support/app-build.ts).
  nameAppBuild(`cluster-${process.pid}-${Date.now()}`);
}
