import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { availableParallelism } from 'node:os';
import {
  emptyToUndefined,
  featureEnvironment,
  IsTimeZone,
  list,
  toBool,
  toInt,
} from './feature-environment';

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
}

/** The `app` slice of AppConfig. */
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
  /** Worker processes sharing the port (WEB_CONCURRENCY; default: the CPUs). 1: no primary. */
  workers: number;
}

/** The `app` slice from validated variables. */
export function buildAppSettings(env: AppEnvironment): AppSettings {
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
    workers: env.WEB_CONCURRENCY ?? availableParallelism(),
  };
}

/** The `app` namespace, built alone from process.env (AppModule registers it from AppConfig). */
export const appSettingsConfig = registerAs('app', (): AppSettings =>
  buildAppSettings(featureEnvironment(AppEnvironment)),
);
