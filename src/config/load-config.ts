import { Logger } from '@nestjs/common';
import { resolve } from 'node:path';
import { type AppConfig, buildConfig } from './app.config';
import { resolveAuthSecret } from './auth-secret';
import { resolveEncryptionKey } from './encryption-key';

/** Where the generated development AUTH_SECRET is kept. */
export const AUTH_SECRET_FILE = resolve('.data', 'auth-secret');
/** Where the generated development ENCRYPTION_KEY is kept. */
export const ENCRYPTION_KEY_FILE = resolve('.data', 'encryption-key');

/**
 * Validated configuration with the auth secret and the encryption key resolved; throws naming
 * any invalid variable.
 */
export function loadConfig(raw: Record<string, string | undefined>): AppConfig {
  const config = buildConfig(raw);
  const warn = (msg: string) => new Logger('Config').warn(msg);
  config.auth.secret = resolveAuthSecret(config.auth.secret, AUTH_SECRET_FILE, warn);
  config.auth.encryptionKey = resolveEncryptionKey(
    config.auth.encryptionKey,
    ENCRYPTION_KEY_FILE,
    warn,
  );
  return config;
}
