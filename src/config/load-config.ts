import { Logger } from '@nestjs/common';
import { resolve } from 'node:path';
import { buildConfig, type LoadedConfig } from './app.config';
import { resolveAuthSecret } from './auth-secret';
import { resolveEncryptionKey } from './encryption-key';
import type { RawEnv } from './feature-environment';

/** Where the generated development AUTH_SECRET is kept. */
export const AUTH_SECRET_FILE = resolve('.data', 'auth-secret');
/** Where the generated development ENCRYPTION_KEY is kept. */
export const ENCRYPTION_KEY_FILE = resolve('.data', 'encryption-key');

/**
 * Validated configuration with the auth secret and the encryption key resolved; throws naming
 * any invalid variable.
 */
export function loadConfig(raw: RawEnv): LoadedConfig {
  const config = buildConfig(raw);
  const warn = (msg: string) => new Logger('Config').warn(msg);
  const { shared } = config;
  shared.authSecret = resolveAuthSecret(shared.authSecret || undefined, AUTH_SECRET_FILE, warn);
  shared.encryptionKey = resolveEncryptionKey(
    shared.encryptionKey || undefined,
    ENCRYPTION_KEY_FILE,
    warn,
  );
  return config;
}
