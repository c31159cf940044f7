import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { StartupError } from '../common/errors/startup-error';

/** A 32-byte key in standard base64 (44 characters), the only shape ENCRYPTION_KEY may take. */
const KEY_SHAPE = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Returns ENCRYPTION_KEY when configured (validated at boot). Outside production (where it is
 * required), generates a random 256-bit key once and keeps it in `file` (mode 0600), like
 * AUTH_SECRET, so encrypted two-factor secrets stay readable across restarts; `warn` is called
 * once when a key is generated. Throws StartupError when the file holds something else. The key
 * itself is never logged.
 */
export function resolveEncryptionKey(
  configured: string | undefined,
  file: string,
  warn: (msg: string) => void,
): string {
  if (configured) return configured;
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (!KEY_SHAPE.test(stored))
      throw new StartupError(
        `${file} does not hold a 32-byte base64 key; delete it or set ENCRYPTION_KEY`,
      );
    return stored;
  }
  const key = randomBytes(32).toString('base64');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, key, { mode: 0o600 });
  warn(
    `ENCRYPTION_KEY is not set: generated a development key in ${file}. Set ENCRYPTION_KEY in production.`,
  );
  return key;
}
