import { rmSync } from 'node:fs';
import type { EmbeddedServer } from '../../src/database/embedded-postgres';

/** Stops the cluster test's PostgreSQL and removes its data directory. */
export default async function clusterGlobalTeardown(): Promise<void> {
  const server = (globalThis as { __CLUSTER_PG__?: EmbeddedServer }).__CLUSTER_PG__;
  await server?.stop().catch(() => undefined);
  const dir = process.env.CLUSTER_PG_DIR;
  if (dir) rmSync(dir, { recursive: true, force: true });
}
