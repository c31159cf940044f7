import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { availableParallelism } from 'node:os';
import { defineConfigSlice } from './config-slice';
import { emptyToUndefined, IsTimeZone, list, toBool, toInt } from './feature-environment';

/** Process-wide variables: environment, port, public address, logging, workers. */
export class AppEnvironment {
  @IsOptional() @IsIn(['development', 'production', 'test']) NODE_ENV?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) PORT?: number;
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() TRUST_PROXY?: boolean;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(64) WEB_CONCURRENCY?: number;
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  APP_BASE_URL?: string;
  @IsOptional() @IsString() CORS_ORIGINS?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() @IsTimeZone() APP_TIMEZONE?: string;
  /** Read for the default worker count only; validated by DatabaseEnvironment. */
  DATABASE_URL?: string;
}

/** The `app` slice: process-wide settings any module may read (`@Inject(appSettingsConfig.KEY)`). */
export interface AppSettings {
  env: 'development' | 'production' | 'test';
  port: number;
  /** APP_BASE_URL without a trailing slash; unset: `http://localhost:<port>`. */
  baseUrl: string;
  corsOrigins: string[];
  /** APP_TIMEZONE, an IANA name (default UTC). */
  timezone: string;
  logLevel: string;
  trustProxy: boolean;
  /**
   * Worker processes sharing the port (WEB_CONCURRENCY; default: defaultWorkers). 1: no
   * primary.
   */
  workers: number;
}

/** Host names that put PostgreSQL on this machine (a socket path is local too). */
const LOCAL_HOSTS = new Set(['', 'localhost', '::1', '[::1]']);

/**
 * Workers when WEB_CONCURRENCY is unset: the CPUs, less one when PostgreSQL runs on this host
 * (embedded, i.e. `databaseUrl` unset; or a URL naming localhost, a 127.x address, ::1 or a
 * socket), so the database keeps a core of its own; at least 1. Measured on 2 cores with
 * PostgreSQL on the same host (bench scenario 12, metered generate): one worker served 290
 * req/s, two 247.
 */
export function defaultWorkers(
  databaseUrl: string | undefined,
  cpus = availableParallelism(),
): number {
  let local = databaseUrl === undefined;
  if (!local) {
    try {
      const url = new URL(databaseUrl!);
      const host = decodeURIComponent(url.hostname);
      const socket = url.searchParams.get('host') ?? '';
      local =
        LOCAL_HOSTS.has(host) ||
        host.startsWith('127.') ||
        host.startsWith('/') ||
        socket.startsWith('/');
    } catch {
      local = false;
    }
  }
  return Math.max(1, local ? cpus - 1 : cpus);
}

/**
 * The `app` slice from validated variables; `databaseUrl` (DATABASE_URL) decides the default
 * worker count.
 */
export function buildAppSettings(env: AppEnvironment, databaseUrl?: string): AppSettings {
  const nodeEnv = (env.NODE_ENV ?? 'development') as AppSettings['env'];
  return {
    env: nodeEnv,
    port: env.PORT ?? 3000,
    // Unset: this host on the port actually served, so links and the OpenAPI `servers` entry work.
    baseUrl: (env.APP_BASE_URL ?? `http://localhost:${env.PORT ?? 3000}`).replace(/\/$/, ''),
    corsOrigins: list(env.CORS_ORIGINS),
    timezone: env.APP_TIMEZONE ?? 'UTC',
    logLevel: env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
    trustProxy: env.TRUST_PROXY ?? false,
    workers: env.WEB_CONCURRENCY ?? defaultWorkers(databaseUrl),
  };
}

/** The `app` slice. */
export const appSettingsConfig = defineConfigSlice({
  name: 'app',
  environment: AppEnvironment,
  // Where the database runs decides the default worker count; the URL is validated by `db`.
  build: (env): AppSettings => buildAppSettings(env, env.DATABASE_URL || undefined),
});
