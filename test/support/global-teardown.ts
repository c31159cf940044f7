import type { EmbeddedServer } from '../../src/database/embedded-postgres';
import { adminQuery, templateDb } from './test-db';

export default async function globalTeardown(): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS "${templateDb()}" WITH (FORCE)`).catch(() => undefined);
  const server = (globalThis as { __EMBEDDED_PG__?: EmbeddedServer }).__EMBEDDED_PG__;
  await server?.stop();
}
