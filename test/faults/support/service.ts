import { join } from 'node:path';
import { verifyInMailDir } from '../../support/accounts';
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
 * Starts the service (`spawnApp`: the run's build of `src/main.ts`) on a free port with `pg`'s
 * embedded server and `env`, and waits for `/health/ready` 200.
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
  await waitForStatus(app, `${base}/health/ready`, 200);
  mailDirs.set(base, app.mailDir);
  return { app, base };
}

/** SIGKILLs the service (if still running) and waits for it to be gone. */
export async function killService(s: Service | undefined): Promise<void> {
  if (!s || s.app.child.exitCode !== null || s.app.child.signalCode !== null) return;
  s.app.child.kill('SIGKILL');
  await s.app.exited;
}

/** The MAIL_DIR of each started service, by base URL (its mails are `.eml` files). */
const mailDirs = new Map<string, string>();

/**
 * Signs up a user over HTTP and follows the verification link from the service's mail files,
 * which grants the 100 sign-up credits; returns its id and bearer header.
 */
export async function signUp(
  base: string,
  email: string,
  /** MAIL_DIR of the service, for one not started by `startService` (its `app.mailDir`). */
  mailDir = mailDirs.get(base),
): Promise<{ id: string; auth: Record<string, string> }> {
  const res = await call(base, 'POST', '/api/auth/signup', {
    body: { email, password: 'correct horse battery', name: 'Fault Tester' },
  });
  if (res.status !== 201) throw new Error(`signup ${res.status}: ${res.text}`);
  if (!mailDir) throw new Error(`no MAIL_DIR known for the service at ${base}`);
  await verifyInMailDir(base, mailDir, email);
  return {
    id: res.json.user.id,
    auth: { authorization: `Bearer ${res.json.accessToken}` },
  };
}
