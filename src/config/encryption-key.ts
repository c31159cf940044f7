import { randomBytes } from 'node:crypto';
import { resolveDevSecret } from './dev-secret';

/** A 32-byte key in standard base64 (44 characters), the only shape ENCRYPTION_KEY may take. */
const KEY_SHAPE = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Returns ENCRYPTION_KEY when configured (validated at boot); outside production (where it is
 * required), a random 256-bit key generated once into `file`, so encrypted two-factor secrets
 * stay readable across restarts (see resolveDevSecret). Throws StartupError when the file
 * holds something else than a 32-byte base64 key.
 */
export function resolveEncryptionKey(
  configured: string | undefined,
  file: string,
  warn: (msg: string) => void,
): string {
  return resolveDevSecret({
    name: 'ENCRYPTION_KEY',
    configured,
    file,
    generate: () => randomBytes(32).toString('base64'),
    isValid: (stored) => KEY_SHAPE.test(stored),
    shape: 'a 32-byte base64 key',
    warn,
  });
}
