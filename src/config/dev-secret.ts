import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { StartupError } from '../common/errors/startup-error';

export interface DevSecret {
  /** The variable's name, for messages (e.g. AUTH_SECRET). */
  name: string;
  /** What the operator configured; used as is when set (validated at boot). */
  configured: string | undefined;
  /** Where a generated value is kept (mode 0600), under `.data/`. */
  file: string;
  /** A new random value. */
  generate: () => string;
  /** Whether a stored value has the right shape; a file holding anything else is a StartupError. */
  isValid?: (stored: string) => boolean;
  /** That shape in words, for the error (e.g. "a 32-byte base64 key"). */
  shape?: string;
  /** Called once, when a value is generated. */
  warn: (msg: string) => void;
}

/**
 * The configured secret, or outside production (where the variable is required) one generated
 * once and kept in `file`, so it survives restarts. The value itself is never logged.
 * Throws StartupError when `file` holds a value `isValid` refuses.
 */
export function resolveDevSecret(s: DevSecret): string {
  if (s.configured) return s.configured;
  if (existsSync(s.file)) {
    const stored = readFileSync(s.file, 'utf8').trim();
    if (s.isValid && !s.isValid(stored))
      throw new StartupError(
        `${s.file} does not hold ${s.shape ?? `a valid ${s.name}`}; delete it or set ${s.name}`,
      );
    return stored;
  }
  const value = s.generate();
  mkdirSync(dirname(s.file), { recursive: true });
  writeFileSync(s.file, value, { mode: 0o600 });
  s.warn(
    `${s.name} is not set: generated a development value in ${s.file}. Set ${s.name} in production.`,
  );
  return value;
}
