import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

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

/** Polls `url` until it answers `status`, the process exits, or `ms` pass. */
export async function waitForStatus(
  app: SpawnedApp,
  url: string,
  status: number,
  ms = 45_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  let ended = false;
  void app.exited.then(() => (ended = true));
  while (Date.now() < deadline && !ended) {
    try {
      if ((await fetch(url)).status === status) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
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
