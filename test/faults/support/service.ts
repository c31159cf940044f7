import { join } from 'node:path';
import { freePort, spawnApp, type SpawnedApp, waitForStatus } from '../../support/spawn-app';
import { call } from './http';
import type { EmbeddedPgDir } from './embedded-pg';

export const SERVICE_SECRET = 'faults-test-secret-0123456789-0123456789';
export const WEBHOOK_SECRET = 'whsec_faults_local';

/** A service started as a child process on its own embedded PostgreSQL. */
export interface Service {
  app: SpawnedApp;
  base: string;
}

/**
 * Starts `src/main.ts` (ts-node) on a free port with `pg`'s embedded server and `env`, and
 * waits for `/health/ready` 200.
 */
export async function startService(
  pg: EmbeddedPgDir,
  env: Record<string, string | undefined> = {},
  port?: number,
): Promise<Service> {
  const p = port ?? (await freePort());
  const app = spawnApp({
    ...pg.env(),
    PORT: String(p),
    AUTH_SECRET: SERVICE_SECRET,
    AUTH_RATE_LIMIT_PER_MINUTE: '10000',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    UPLOAD_DIR: join(pg.root, 'uploads'),
    ...env,
  });
  const base = `http://127.0.0.1:${p}`;
  await waitForStatus(app, `${base}/health/ready`, 200, 60_000);
  return { app, base };
}

/** SIGKILLs the service (if still running) and waits for it to be gone. */
export async function killService(s: Service | undefined): Promise<void> {
  if (!s || s.app.child.exitCode !== null || s.app.child.signalCode !== null) return;
  s.app.child.kill('SIGKILL');
  await s.app.exited;
}

/** Signs up a user over HTTP (100 sign-up credits) and returns its id and bearer header. */
export async function signUp(
  base: string,
  email: string,
): Promise<{ id: string; auth: Record<string, string> }> {
  const res = await call(base, 'POST', '/api/auth/signup', {
    body: { email, password: 'correct horse battery', name: 'Fault Tester' },
  });
  if (res.status !== 201) throw new Error(`signup ${res.status}: ${res.text}`);
  return {
    id: res.json.user.id,
    auth: { authorization: `Bearer ${res.json.accessToken}` },
  };
}
