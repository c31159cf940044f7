import { rmSync } from 'node:fs';
import type { EmbeddedServer } from '../../src/database/embedded-postgres';
import { removeAppBuild } from '../support/app-build';

/** Stops the cluster test's PostgreSQL and removes its data directory and the run's build. */
export default async function clusterGlobalTeardown(): Promise<void> {
  const server = (globalThis as { __CLUSTER_PG__?: EmbeddedServer }).__CLUSTER_PG__;
  await server?.stop().catch(() => undefined);
  const dir = process.env.CLUSTER_PG_DIR;
  if (dir) rmSync(dir, { recursive: true, force: true });
  await removeAppBuild();
}
