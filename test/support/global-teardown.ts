import type { EmbeddedServer } from '../../src/database/embedded-postgres';
import { adminQuery, TEMPLATE_DB } from './test-db';

export default async function globalTeardown(): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS "${TEMPLATE_DB}" WITH (FORCE)`).catch(() => undefined);
  const server = (globalThis as { __EMBEDDED_PG__?: EmbeddedServer }).__EMBEDDED_PG__;
  await server?.stop();
}
