import type { EmbeddedServer } from '../../src/database/embedded-postgres';
import { removeAppBuild } from './app-build';
import { printStatsSummary } from './openapi/stats-summary';
import { adminQuery, templateDb } from './test-db';

export default async function globalTeardown(): Promise<void> {
  printStatsSummary();
  await adminQuery(`DROP DATABASE IF EXISTS "${templateDb()}" WITH (FORCE)`).catch(() => undefined);
  const server = (globalThis as { __EMBEDDED_PG__?: EmbeddedServer }).__EMBEDDED_PG__;
  await server?.stop();
  await removeAppBuild();
}
