import { applyDecorators } from '@nestjs/common';
import { plainToInstance, Transform } from 'class-transformer';
import { StartupError } from '../common/errors/startup-error';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsPositive,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  validateSync,
  ValidateIf,
} from 'class-validator';

// One host (a name, an IPv4 address or a bracketed IPv6 address) with an optional port.
const HOST_ENTRY = String.raw`(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::\d{1,5})?`;
const ALLOWED_HOSTS = new RegExp(String.raw`^\s*${HOST_ENTRY}(?:\s*,\s*${HOST_ENTRY})*\s*$`);

const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : Number(value);
const toNumber = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : Number(value);
const HTTP_URL = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : ['1', 'true', 'yes'].includes(String(value));
const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/**
 * A pair of variables that go together (a client id and its secret, an access key and its
 * secret): both or neither. One alone fails at boot with a message naming both.
 */
function SetTogether(a: string, b: string): PropertyDecorator {
  const given = (o: Record<string, unknown>) => !!(o[a] ?? o[b]);
  return applyDecorators(
    ValidateIf(given),
    Transform(emptyToUndefined),
    IsString({ message: `${a} and ${b} must be set together` }),
  );
}
/** A comma-separated list, trimmed and lower-cased; empty → undefined (the default applies). */
const toList = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const items = value
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);
  return items.length ? items : undefined;
};

/** Content types an upload may have: the kinds whose magic bytes `src/uploads` recognises. */
export const UPLOAD_CONTENT_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/pdf',
  'text/plain',
] as const;
export type UploadContentType = (typeof UPLOAD_CONTENT_TYPES)[number];

/** Where upload bytes are stored (STORAGE_DRIVER). */
export const STORAGE_DRIVERS = ['disk', 's3'] as const;
export type StorageDriver = (typeof STORAGE_DRIVERS)[number];

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Every environment variable the service reads; `.env.example` documents each one. */
export class EnvironmentVariables {
  @IsOptional() @IsIn(['development', 'production', 'test']) NODE_ENV?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) PORT?: number;
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL?: string;

  @ValidateIf(
    (o: EnvironmentVariables) => o.NODE_ENV === 'production' || o.DATABASE_URL !== undefined,
  )
  @Transform(emptyToUndefined)
  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false, require_protocol: true })
  DATABASE_URL?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() DB_MIGRATIONS_RUN?: boolean;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(200) DB_POOL_SIZE?: number;
  @IsOptional() @IsString() EMBEDDED_PG_DIR?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(65535) EMBEDDED_PG_PORT?: number;

  @ValidateIf(
    (o: EnvironmentVariables) => o.NODE_ENV === 'production' || o.AUTH_SECRET !== undefined,
  )
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(32, { message: 'AUTH_SECRET must be at least 32 characters' })
  AUTH_SECRET?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(60) AUTH_SESSION_MAX_AGE?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) AUTH_RATE_LIMIT_PER_MINUTE?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) API_KEY_RPM?: number;
  @IsOptional() @Transform(toBool) @IsBoolean() TRUST_PROXY?: boolean;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(64) WEB_CONCURRENCY?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(3_600_000) SESSION_CACHE_TTL_MS?: number;
  /** AES-256-GCM key for secrets at rest (two-factor secrets): 32 bytes, standard base64. */
  @ValidateIf(
    (o: EnvironmentVariables) => o.NODE_ENV === 'production' || o.ENCRYPTION_KEY !== undefined,
  )
  @Transform(emptyToUndefined)
  @IsString({ message: 'ENCRYPTION_KEY is required in production' })
  @Matches(/^[A-Za-z0-9+/]{43}=$/, {
    message:
      'ENCRYPTION_KEY must be 32 bytes in base64 (44 characters), e.g. `openssl rand -base64 32`',
  })
  ENCRYPTION_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() @MaxLength(64) TWO_FACTOR_ISSUER?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(1000) TWO_FACTOR_MAX_FAILURES?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(86400) TWO_FACTOR_LOCKOUT_SECONDS?: number;
  /** Shared rate-limit counters for several instances; unset → per-instance memory. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false, require_protocol: true })
  REDIS_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() REDIS_KEY_PREFIX?: string;

  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  APP_BASE_URL?: string;
  @IsOptional() @IsString() CORS_ORIGINS?: string;
  @IsOptional() @IsString() ADMIN_EMAILS?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() REQUIRE_EMAIL_VERIFICATION?: boolean;

  /** Outgoing mail; in production there is no file fallback, so a server is required. */
  @ValidateIf((o: EnvironmentVariables) => o.NODE_ENV === 'production' || o.SMTP_URL !== undefined)
  @Transform(emptyToUndefined)
  @Matches(/^smtps?:\/\/[^\s/?#]+(?::\d{1,5})?\/?$/, {
    message: ({ value }) =>
      value === undefined
        ? 'SMTP_URL is required in production (e.g. smtp://user:pass@host:587)'
        : 'SMTP_URL must be an smtp:// or smtps:// URL (e.g. smtp://user:pass@host:587)',
  })
  SMTP_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() @MaxLength(320) MAIL_FROM?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() MAIL_DIR?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) SIGNUP_CREDITS?: number;
  @IsOptional()
  @ValidateIf((_o, v) => v !== undefined)
  @IsString()
  APP_TIMEZONE?: string;

  // Social login: a provider is offered only with both its client id and secret; one alone is a mistake.
  @SetTogether('GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET') GOOGLE_CLIENT_ID?: string;
  @SetTogether('GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET') GOOGLE_CLIENT_SECRET?: string;
  @SetTogether('GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET') GITHUB_CLIENT_ID?: string;
  @SetTogether('GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET') GITHUB_CLIENT_SECRET?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GOOGLE_AUTHORIZATION_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GOOGLE_TOKEN_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GOOGLE_USERINFO_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GITHUB_AUTHORIZATION_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GITHUB_TOKEN_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GITHUB_USER_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GITHUB_EMAILS_URL?: string;

  @IsOptional() @Transform(emptyToUndefined) @IsString() OPENAI_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) OPENAI_BASE_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() ANTHROPIC_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) ANTHROPIC_BASE_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() GEMINI_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GEMINI_BASE_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() MODELS_FILE?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(10) AI_RETRY_ATTEMPTS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) AI_RETRY_BASE_DELAY_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(10) AI_SSE_PING_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) HOLD_TTL_SECONDS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1000) HOLD_SWEEP_INTERVAL_MS?: number;

  @IsOptional() @Transform(toBool) @IsBoolean() JOBS_ENABLED?: boolean;
  @IsOptional() @Transform(toNumber) @IsNumber() @Min(0.5) JOBS_POLL_INTERVAL_SECONDS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) JOBS_SUPERVISE_INTERVAL_SECONDS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(50) JOBS_POOL_SIZE?: number;
  @IsOptional() @Transform(emptyToUndefined) @IsString() @MaxLength(200) EMBEDDINGS_MODEL?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(8) @Max(3072) EMBEDDINGS_DIMENSIONS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(3600) SEARCH_INDEX_DELAY_SECONDS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(50) TASKS_CANCEL_POLL_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(10) TASKS_RUN_HEARTBEAT_SECONDS?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  TASKS_MANUAL_RUNS_PER_MINUTE?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  TASKS_RUN_RETRY_DELAY_SECONDS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) @Max(600_000) PLUGIN_TOOL_TIMEOUT_MS?: number;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(ALLOWED_HOSTS, {
    message: 'PLUGIN_ALLOWED_HOSTS must be comma-separated host or host:port entries ([::1]:8080)',
  })
  PLUGIN_ALLOWED_HOSTS?: string;

  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_SECRET_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_PUBLISHABLE_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_WEBHOOK_SECRET?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_PRICE_BASIC?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_PRICE_PRO?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) STRIPE_API_BASE?: string;
  @IsOptional() @Transform(toNumber) @IsNumber() @IsPositive() PURCHASE_MAX_USD?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) CREDITS_PER_USD?: number;
  @IsOptional() @Transform(toNumber) @IsNumber() @IsPositive() PURCHASE_MAX_CNY?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) CREDITS_PER_CNY?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) PURCHASE_RECHECK_SECONDS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) REFERRAL_SIGNUP_BONUS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) REFERRAL_REWARD?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) REFERRAL_MONTHLY_CAP?: number;
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({ maxDecimalPlaces: 2 })
  @Min(0)
  REFERRAL_MIN_PAYMENT?: number;
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({ maxDecimalPlaces: 2 })
  @Min(0)
  REFERRAL_MIN_PAYMENT_CNY?: number;

  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(365) INVITATION_TTL_DAYS?: number;

  @IsOptional() @Transform(emptyToUndefined) @IsString() UPLOAD_DIR?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) UPLOAD_MAX_BYTES?: number;
  @IsOptional()
  @Transform(toList)
  @IsIn(UPLOAD_CONTENT_TYPES, {
    each: true,
    message: `UPLOAD_ALLOWED_TYPES may list only ${UPLOAD_CONTENT_TYPES.join(', ')}`,
  })
  UPLOAD_ALLOWED_TYPES?: string[];
  /** How long a signed `/uploads/` link is valid (seconds, 1 minute to 7 days). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(60) @Max(604_800) UPLOAD_URL_TTL_SECONDS?: number;
  /** Download misses (404) per client IP and minute before 429. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) UPLOAD_MISS_LIMIT_PER_MINUTE?: number;
  /** Bytes all of one user's stored uploads may add up to (at least one byte, below 2^53). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  UPLOAD_QUOTA_BYTES?: number;
  /** Upload attempts per user in a rolling hour before 429. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) UPLOAD_RATE_PER_HOUR?: number;

  // Upload storage: local disk (UPLOAD_DIR) or an S3 bucket; S3_* are read only for s3.
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(STORAGE_DRIVERS, { message: `STORAGE_DRIVER must be one of ${STORAGE_DRIVERS.join(', ')}` })
  STORAGE_DRIVER?: StorageDriver;
  @ValidateIf((o: EnvironmentVariables) => o.STORAGE_DRIVER === 's3')
  @Transform(emptyToUndefined)
  @IsString({ message: 'S3_BUCKET is required when STORAGE_DRIVER=s3' })
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]$/, {
    message: 'S3_BUCKET must be a bucket name (3-255 letters, digits, ".", "-" or "_")',
  })
  S3_BUCKET?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[a-z0-9][a-z0-9-]*$/, { message: 'S3_REGION must be a region name like us-east-1' })
  S3_REGION?: string;
  /** For S3-compatible stores (MinIO, ...); unset = AWS's endpoint for S3_REGION. */
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) S3_ENDPOINT?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() S3_FORCE_PATH_STYLE?: boolean;
  // Static keys go together; without both the SDK's default credential chain applies.
  @SetTogether('S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY') S3_ACCESS_KEY_ID?: string;
  @SetTogether('S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY') S3_SECRET_ACCESS_KEY?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @MaxLength(512)
  @Matches(/^[^/]/, { message: 'S3_KEY_PREFIX must not start with "/"' })
  S3_KEY_PREFIX?: string;

  @IsOptional() @Transform(emptyToUndefined) @IsString() FRONTEND_DIR?: string;

  /** The bearer token of /metrics; in production it or METRICS_PORT is required. */
  @ValidateIf(
    (o: EnvironmentVariables) =>
      (o.NODE_ENV === 'production' && o.METRICS_PORT === undefined) ||
      o.METRICS_TOKEN !== undefined,
  )
  @Transform(emptyToUndefined)
  @IsString({ message: 'METRICS_TOKEN or METRICS_PORT is required in production' })
  @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  METRICS_TOKEN?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) METRICS_PORT?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(600_000) SHUTDOWN_GRACE_MS?: number;
}

/**
 * Validates raw environment values once at boot.
 * Throws an Error whose message names every wrong variable, e.g. `PORT: PORT must not be greater than 65535`.
 */
export function validateEnv(raw: Record<string, unknown>): EnvironmentVariables {
  const env = plainToInstance(EnvironmentVariables, raw, { excludeExtraneousValues: false });
  const errors = validateSync(env, { skipMissingProperties: false, forbidUnknownValues: false });
  const messages = errors.map(
    (e) => `${e.property}: ${Object.values(e.constraints ?? {}).join(', ')}`,
  );
  if (env.APP_TIMEZONE && !isTimeZone(env.APP_TIMEZONE)) {
    messages.push(`APP_TIMEZONE: ${env.APP_TIMEZONE} is not an IANA time zone`);
  }
  if (messages.length) throw new StartupError(`Invalid configuration:\n  ${messages.join('\n  ')}`);
  return env;
}
