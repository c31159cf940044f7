import { Logger } from '@nestjs/common';
import { resolve } from 'node:path';
import { type AppConfig, buildConfig } from './app.config';
import { resolveAuthSecret } from './auth-secret';

/** Where the generated development AUTH_SECRET is kept. */
export const AUTH_SECRET_FILE = resolve('.data', 'auth-secret');

/** Validated configuration with the auth secret resolved; throws naming any invalid variable. */
export function loadConfig(raw: Record<string, string | undefined>): AppConfig {
  const config = buildConfig(raw);
  config.auth.secret = resolveAuthSecret(config.auth.secret, AUTH_SECRET_FILE, (msg) =>
    new Logger('Config').warn(msg),
  );
  return config;
}
