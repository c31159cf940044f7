import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnApp, type SpawnedApp, waitForStatus } from '../support/spawn-app';

/**
 * Starts two instances of the service (child processes, `WEB_CONCURRENCY` workers each when the
 * run sets it) on the cluster's PostgreSQL, as a release would: the first migrates, the second
 * starts once the first is ready, with DB_MIGRATIONS_RUN=false. Each started instance is pushed
 * onto `into` at once, so afterAll stops it even when the other fails to start. `perInstance(i)`
 * adds variables of instance `i` (its own provider, say). Both write mails (no SMTP_URL) to one
 * MAIL_DIR, since either instance's job worker may send a mail the other queued.
 */
export async function startTwoInstances(
  into: { apps: SpawnedApp[]; bases: string[] },
  env: Record<string, string | undefined>,
  perInstance: (i: number) => Record<string, string | undefined> = () => ({}),
): Promise<void> {
  const mailDir = env.MAIL_DIR ?? join(tmpdir(), `mail-cluster-${randomBytes(5).toString('hex')}`);
  for (const [i, migrate] of [
    [0, undefined],
    [1, 'false'],
  ] as const) {
    const port = await freePort();
    const app = spawnApp({
      ...env,
      ...perInstance(i),
      MAIL_DIR: mailDir,
      PORT: String(port),
      DB_MIGRATIONS_RUN: migrate,
    });
    into.apps.push(app);
    into.bases[i] = `http://127.0.0.1:${port}`;
    // Until ready, or failing with the output once the process exits: no wall-clock budget (the
    // first instance waits for the run's build, which a busy machine makes slow), the calling
    // hook's timeout stays the hang detector.
    await waitForStatus(app, `${into.bases[i]}/health/ready`, 200);
  }
}

/** SIGTERM (SIGKILL after 15 s) unless already ended; resolves with the exit code or signal. */
export async function stopInstance(app: SpawnedApp): Promise<number | string> {
  if (app.child.exitCode === null && app.child.signalCode === null) {
    app.child.kill('SIGTERM');
    const timer = setTimeout(() => app.child.kill('SIGKILL'), 15_000);
    await app.exited;
    clearTimeout(timer);
  }
  return app.exited;
}
