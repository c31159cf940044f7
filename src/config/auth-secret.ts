import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Returns AUTH_SECRET when configured. Outside production, generates a random 256-bit secret
 * once and keeps it in `file` (mode 0600) so sessions survive restarts; `warn` is called once
 * when a secret is generated. The secret itself is never logged.
 */
export function resolveAuthSecret(
  configured: string | undefined,
  file: string,
  warn: (msg: string) => void,
): string {
  if (configured) return configured;
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, secret, { mode: 0o600 });
  warn(
    `AUTH_SECRET is not set: generated a development secret in ${file}. Set AUTH_SECRET in production.`,
  );
  return secret;
}
