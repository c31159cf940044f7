import { randomBytes } from 'node:crypto';
import { resolveDevSecret } from './dev-secret';

/**
 * Returns AUTH_SECRET when configured; outside production, a random 256-bit secret generated
 * once into `file`, so sessions survive restarts (see resolveDevSecret).
 */
export function resolveAuthSecret(
  configured: string | undefined,
  file: string,
  warn: (msg: string) => void,
): string {
  return resolveDevSecret({
    name: 'AUTH_SECRET',
    configured,
    file,
    generate: () => randomBytes(32).toString('base64url'),
    warn,
  });
}
