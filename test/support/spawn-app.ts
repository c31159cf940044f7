import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { waitFor } from './wait';

const ROOT = resolve(__dirname, '..', '..');

/**
 * Time limit per boot of a spawned service, for the tests that spawn them (a test's limit is
 * this times its boots): ts-node transpiles the whole app first, about 10 s on an idle 2-core
 * machine and 83 s seen with both cores saturated by other work; twice that.
 */
export const BOOT_MS = 180_000;

export interface SpawnedApp {
  child: ChildProcess;
  /** stdout + stderr so far. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process ends. */
  exited: Promise<number | string>;
  /** MAIL_DIR: where its mails go as `.eml` files (no SMTP_URL); a fresh temporary folder unless given. */
  mailDir: string;
}

/** Starts `src/main.ts` in a child process (ts-node, no build needed) with exactly `env` added. */
export function spawnApp(env: Record<string, string | undefined>): SpawnedApp {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    // One process unless the run asks for workers (`npm run test:cluster` runs again with 2).
    WEB_CONCURRENCY: process.env.WEB_CONCURRENCY ?? '1',
    ...env,
    MAIL_DIR: env.MAIL_DIR ?? join(tmpdir(), `mail-spawn-${randomBytes(5).toString('hex')}`),
  };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((done) =>
    child.on('exit', (code, signal) => done(code ?? signal ?? -1)),
  );
  return { child, output: () => out, exited, mailDir: childEnv.MAIL_DIR! };
}

/**
 * Polls `url` until it answers `status`; throws with the process output when the process exits
 * first (or `ms` pass, when given). Otherwise only the calling test's timeout bounds the wait.
 */
export async function waitForStatus(
  app: SpawnedApp,
  url: string,
  status: number,
  ms = Infinity,
): Promise<void> {
  let ended = false;
  void app.exited.then(() => (ended = true));
  const answers = async () => {
    try {
      return (await fetch(url)).status === status;
    } catch {
      return false; // not listening yet
    }
  };
  if ((await waitFor(async () => ended || (await answers()), ms, 200)) && !ended) return;
  throw new Error(`${url} did not answer ${status}; output:\n${app.output()}`);
}

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });
}
