import { Client } from 'pg';

/**
 * The PostgreSQL server the e2e suite uses: DATABASE_URL when set, else the embedded server
 * started by global-setup. Databases are siblings on that server: one migrated template,
 * then one clone per test file.
 */
export const TEST_DB_PREFIX = 'app_test_';

/** The migrated template of this run (set by global-setup; unique so runs can share a server). */
export function templateDb(): string {
  const name = process.env.TEST_PG_TEMPLATE;
  if (!name)
    throw new Error('TEST_PG_TEMPLATE is not set: run the e2e tests through jest (global-setup)');
  return name;
}

/** `postgres://user:pass@host:port/<name>` on the test server. */
export function databaseUrl(name: string): string {
  const base = process.env.TEST_PG_URL;
  if (!base)
    throw new Error('TEST_PG_URL is not set: run the e2e tests through jest (global-setup)');
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs statements on the server's maintenance database (`postgres`). */
export async function adminQuery(...statements: string[]): Promise<void> {
  const client = new Client({ connectionString: databaseUrl('postgres') });
  client.on('error', () => undefined);
  await client.connect();
  try {
    for (const sql of statements) await client.query(sql);
  } finally {
    await client.end();
  }
}
