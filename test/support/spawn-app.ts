import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { appBuild, AWAIT_BUILD } from './app-build';
import { waitFor } from './wait';

const ROOT = resolve(__dirname, '..', '..');

/**
 * Time limit per boot of a spawned service, for the tests that spawn them (a test's limit is
 * this times its boots). The first boot of a run waits for the run's build (`tsc --noCheck`,
 * about 12 s on an idle 2-core machine); a boot under ts-node (outside jest's global setup)
 * transpiles the whole app, about 10 s idle and 83 s seen with both cores saturated by other
 * work; twice that.
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

/**
 * Starts the service in a child process with exactly `env` added: `src/main.js` of this run's
 * build (test/support/app-build.ts) under jest, else `src/main.ts` through ts-node.
 */
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
  const build = appBuild();
  const args = build
    ? ['--enable-source-maps', '-r', AWAIT_BUILD, join(build, 'src', 'main.js')]
    : ['-r', 'ts-node/register/transpile-only', 'src/main.ts'];
  const child = spawn(process.execPath, args, {
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
