import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import {
  emptyToUndefined,
  featureEnvironment,
  list,
  toBool,
  toInt,
  type WithNodeEnv,
} from '../config/feature-environment';

/** Sessions, rate limits, secrets and sign-up rules. */
export class AuthEnvironment implements WithNodeEnv {
  /** Read for the production rules; validated by AppEnvironment. */
  NODE_ENV?: string;
  @ValidateIf((o: AuthEnvironment) => o.NODE_ENV === 'production' || o.AUTH_SECRET !== undefined)
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(32, { message: 'AUTH_SECRET must be at least 32 characters' })
  AUTH_SECRET?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(60) AUTH_SESSION_MAX_AGE?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) AUTH_RATE_LIMIT_PER_MINUTE?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) API_KEY_RPM?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(3_600_000) SESSION_CACHE_TTL_MS?: number;
  /** AES-256-GCM key for secrets at rest (two-factor secrets): 32 bytes, standard base64. */
  @ValidateIf((o: AuthEnvironment) => o.NODE_ENV === 'production' || o.ENCRYPTION_KEY !== undefined)
  @Transform(emptyToUndefined)
  @IsString({ message: 'ENCRYPTION_KEY is required in production' })
  @Matches(/^[A-Za-z0-9+/]{43}=$/, {
    message:
      'ENCRYPTION_KEY must be 32 bytes in base64 (44 characters), e.g. `openssl rand -base64 32`',
  })
  ENCRYPTION_KEY?: string;
  /** Shared rate-limit counters for several instances; unset → per-instance memory. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false, require_protocol: true })
  REDIS_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() REDIS_KEY_PREFIX?: string;
  @IsOptional() @IsString() ADMIN_EMAILS?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() REQUIRE_EMAIL_VERIFICATION?: boolean;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) SIGNUP_CREDITS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) EMAIL_CHANGE_PER_DAY?: number;
}

/** The `auth` slice of AppConfig. */
export interface AuthConfig {
  /** Undefined outside production until resolved by `resolveAuthSecret`. */
  secret?: string;
  /** Session lifetime in seconds. */
  sessionMaxAge: number;
  rateLimitPerMinute: number;
  /** Requests per minute of one personal API key (API_KEY_RPM, default 60). */
  apiKeyRpm: number;
  /** How long a session row may be served from memory (ms; 0: read every time). */
  sessionCacheTtlMs: number;
  /** Redis holding the rate-limit counters of all instances (REDIS_URL); undefined: memory. */
  redisUrl?: string;
  /** Prefix of those Redis keys (REDIS_KEY_PREFIX, default `throttler:`). */
  redisKeyPrefix: string;
  /** Granted role ADMIN once their address is verified (ADMIN_EMAILS, lower-cased). */
  adminEmails: string[];
  /** BONUS credits granted once, when the address is verified (SIGNUP_CREDITS, default 100). */
  signupCredits: number;
  /** REQUIRE_EMAIL_VERIFICATION (default false): password login of an unverified address is 403. */
  requireEmailVerification: boolean;
  /**
   * Email change requests one account may make in 24 hours (EMAIL_CHANGE_PER_DAY, default 5):
   * each mails a link to an address of the requester's choosing.
   */
  emailChangePerDay: number;
  /**
   * AES-256-GCM key (32 bytes, base64) for secrets at rest; undefined outside production until
   * resolved by `resolveEncryptionKey`.
   */
  encryptionKey?: string;
}

/** The `auth` slice from validated variables; the secrets are resolved later, by loadConfig. */
export function buildAuthConfig(env: AuthEnvironment): AuthConfig {
  return {
    secret: env.AUTH_SECRET,
    sessionMaxAge: env.AUTH_SESSION_MAX_AGE ?? 2592000,
    rateLimitPerMinute: env.AUTH_RATE_LIMIT_PER_MINUTE ?? 10,
    apiKeyRpm: env.API_KEY_RPM ?? 60,
    sessionCacheTtlMs: env.SESSION_CACHE_TTL_MS ?? 30_000,
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? 'throttler:',
    adminEmails: list(env.ADMIN_EMAILS).map((e) => e.toLowerCase()),
    signupCredits: env.SIGNUP_CREDITS ?? 100,
    requireEmailVerification: env.REQUIRE_EMAIL_VERIFICATION ?? false,
    emailChangePerDay: env.EMAIL_CHANGE_PER_DAY ?? 5,
    encryptionKey: env.ENCRYPTION_KEY,
  };
}

/**
 * The `auth` namespace, built alone from process.env, secrets as configured (AppModule registers
 * it from AppConfig, with the development secrets resolved).
 */
export const authConfig = registerAs('auth', (): AuthConfig =>
  buildAuthConfig(featureEnvironment(AuthEnvironment)),
);
