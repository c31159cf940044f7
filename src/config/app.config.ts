import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { AppConfig } from './app-config.types';
import { type UploadContentType, UPLOAD_CONTENT_TYPES, validateEnv } from './env.validation';

// The shapes live in app-config.types.ts; modules keep importing them from here.
export type {
  AppConfig,
  OAuthClientConfig,
  ProviderConfig,
  S3StorageConfig,
} from './app-config.types';

const list = (v?: string): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * `usd` major units in CNY at the rate the credit prices imply (`creditsPerUsd / creditsPerCny`
 * CNY per USD), rounded up to the fen: 5 USD at 100 and 14 credits is 35.72 CNY.
 */
function cnyEquivalent(usd: number, creditsPerUsd: number, creditsPerCny: number): number {
  return Math.ceil((Math.round(usd * 100) * creditsPerUsd) / creditsPerCny) / 100;
}

/**
 * Builds the typed configuration from raw variables (process.env plus test overrides).
 * Throws an Error naming each invalid variable; in production a missing AUTH_SECRET,
 * ENCRYPTION_KEY or DATABASE_URL is such an error.
 */
export function buildConfig(raw: Record<string, string | undefined>): AppConfig {
  const env = validateEnv(raw);
  const nodeEnv = (env.NODE_ENV ?? 'development') as AppConfig['app']['env'];
  return {
    app: {
      env: nodeEnv,
      port: env.PORT ?? 3000,
      // Unset: this host on the port actually served, so links and the OpenAPI `servers` entry work.
      baseUrl: (env.APP_BASE_URL ?? `http://localhost:${env.PORT ?? 3000}`).replace(/\/$/, ''),
      corsOrigins: list(env.CORS_ORIGINS),
      timezone: env.APP_TIMEZONE ?? 'UTC',
      logLevel: env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
      trustProxy: env.TRUST_PROXY ?? false,
      workers: env.WEB_CONCURRENCY ?? availableParallelism(),
    },
    ops: {
      metricsToken: env.METRICS_TOKEN,
      metricsPort: env.METRICS_PORT,
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS ?? 10_000,
    },
    db: {
      url: env.DATABASE_URL,
      migrationsRun: env.DB_MIGRATIONS_RUN ?? true,
      poolSize: env.DB_POOL_SIZE ?? 10,
      embeddedDir: env.EMBEDDED_PG_DIR ?? '.data/pg',
      embeddedPort: env.EMBEDDED_PG_PORT ?? 54329,
    },
    auth: {
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
      encryptionKey: env.ENCRYPTION_KEY,
    },
    mail: {
      smtpUrl: env.SMTP_URL,
      from: env.MAIL_FROM ?? 'AI Chat <no-reply@localhost>',
      dir: resolve(env.MAIL_DIR ?? '.data/mail'),
    },
    twoFactor: {
      issuer: env.TWO_FACTOR_ISSUER ?? 'AI Chat',
      maxFailures: env.TWO_FACTOR_MAX_FAILURES ?? 5,
      lockoutSeconds: env.TWO_FACTOR_LOCKOUT_SECONDS ?? 900,
    },
    oauth: {
      google: {
        clientId: env.GOOGLE_CLIENT_ID,
        clientSecret: env.GOOGLE_CLIENT_SECRET,
        authorizationUrl:
          env.GOOGLE_AUTHORIZATION_URL ?? 'https://accounts.google.com/o/oauth2/v2/auth',
        tokenUrl: env.GOOGLE_TOKEN_URL ?? 'https://oauth2.googleapis.com/token',
        profileUrl: env.GOOGLE_USERINFO_URL ?? 'https://openidconnect.googleapis.com/v1/userinfo',
      },
      github: {
        clientId: env.GITHUB_CLIENT_ID,
        clientSecret: env.GITHUB_CLIENT_SECRET,
        authorizationUrl:
          env.GITHUB_AUTHORIZATION_URL ?? 'https://github.com/login/oauth/authorize',
        tokenUrl: env.GITHUB_TOKEN_URL ?? 'https://github.com/login/oauth/access_token',
        profileUrl: env.GITHUB_USER_URL ?? 'https://api.github.com/user',
        emailsUrl: env.GITHUB_EMAILS_URL ?? 'https://api.github.com/user/emails',
      },
    },
    openai: { apiKey: env.OPENAI_API_KEY, baseUrl: env.OPENAI_BASE_URL },
    anthropic: { apiKey: env.ANTHROPIC_API_KEY, baseUrl: env.ANTHROPIC_BASE_URL },
    gemini: { apiKey: env.GEMINI_API_KEY, baseUrl: env.GEMINI_BASE_URL },
    ai: {
      modelsFile: env.MODELS_FILE,
      retryAttempts: env.AI_RETRY_ATTEMPTS ?? 3,
      retryBaseDelayMs: env.AI_RETRY_BASE_DELAY_MS ?? 1000,
      ssePingMs: env.AI_SSE_PING_MS ?? 15_000,
    },
    credits: {
      holdTtlSeconds: env.HOLD_TTL_SECONDS ?? 600,
      holdSweepIntervalMs: env.HOLD_SWEEP_INTERVAL_MS ?? 60_000,
      purchaseMaxUsd: env.PURCHASE_MAX_USD ?? 1000,
      creditsPerUsd: env.CREDITS_PER_USD ?? 100,
      purchaseMaxCny: env.PURCHASE_MAX_CNY ?? 7000,
      creditsPerCny: env.CREDITS_PER_CNY ?? 14,
      purchaseRecheckSeconds: env.PURCHASE_RECHECK_SECONDS ?? 7200,
    },
    referrals: {
      signupBonus: env.REFERRAL_SIGNUP_BONUS ?? 0,
      reward: env.REFERRAL_REWARD ?? 100,
      monthlyCap: env.REFERRAL_MONTHLY_CAP ?? 20,
      minPaymentUsd: env.REFERRAL_MIN_PAYMENT ?? 5,
      // Unset: the USD minimum at the credit rates, so both minimums buy the same credits.
      minPaymentCny:
        env.REFERRAL_MIN_PAYMENT_CNY ??
        cnyEquivalent(
          env.REFERRAL_MIN_PAYMENT ?? 5,
          env.CREDITS_PER_USD ?? 100,
          env.CREDITS_PER_CNY ?? 14,
        ),
    },
    teams: { invitationTtlDays: env.INVITATION_TTL_DAYS ?? 7 },
    jobs: {
      enabled: env.JOBS_ENABLED ?? true,
      pollIntervalSeconds: env.JOBS_POLL_INTERVAL_SECONDS ?? 2,
      superviseIntervalSeconds: env.JOBS_SUPERVISE_INTERVAL_SECONDS ?? 60,
      poolSize: env.JOBS_POOL_SIZE ?? 4,
    },
    search: {
      embeddingsModel: env.EMBEDDINGS_MODEL,
      dimensions: env.EMBEDDINGS_DIMENSIONS ?? 256,
      indexDelaySeconds: env.SEARCH_INDEX_DELAY_SECONDS ?? 5,
    },
    tasks: {
      cancelPollMs: env.TASKS_CANCEL_POLL_MS ?? 1000,
      runHeartbeatSeconds: env.TASKS_RUN_HEARTBEAT_SECONDS ?? 30,
      manualRunsPerMinute: env.TASKS_MANUAL_RUNS_PER_MINUTE ?? 10,
      runRetryDelaySeconds: env.TASKS_RUN_RETRY_DELAY_SECONDS ?? 5,
    },
    plugins: {
      toolTimeoutMs: env.PLUGIN_TOOL_TIMEOUT_MS ?? 15_000,
      allowedHosts: list(env.PLUGIN_ALLOWED_HOSTS).map((h) => h.toLowerCase()),
    },
    uploads: {
      driver: env.STORAGE_DRIVER ?? 'disk',
      dir: resolve(env.UPLOAD_DIR ?? 'uploads'),
      s3:
        env.STORAGE_DRIVER === 's3'
          ? {
              bucket: env.S3_BUCKET!,
              region: env.S3_REGION ?? 'us-east-1',
              endpoint: env.S3_ENDPOINT,
              forcePathStyle: env.S3_FORCE_PATH_STYLE ?? false,
              accessKeyId: env.S3_ACCESS_KEY_ID,
              secretAccessKey: env.S3_SECRET_ACCESS_KEY,
              keyPrefix: env.S3_KEY_PREFIX ?? '',
            }
          : undefined,
      maxBytes: env.UPLOAD_MAX_BYTES ?? 10 * 1024 * 1024,
      allowedTypes: (env.UPLOAD_ALLOWED_TYPES as UploadContentType[] | undefined) ?? [
        ...UPLOAD_CONTENT_TYPES,
      ],
      urlTtlSeconds: env.UPLOAD_URL_TTL_SECONDS ?? 3600,
      missLimitPerMinute: env.UPLOAD_MISS_LIMIT_PER_MINUTE ?? 20,
      quotaBytes: env.UPLOAD_QUOTA_BYTES ?? 1024 ** 3,
      ratePerHour: env.UPLOAD_RATE_PER_HOUR ?? 100,
    },
    pages: { frontendDir: env.FRONTEND_DIR ? resolve(env.FRONTEND_DIR) : undefined },
    stripe: {
      secretKey: env.STRIPE_SECRET_KEY,
      publishableKey: env.STRIPE_PUBLISHABLE_KEY,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET,
      prices: { BASIC: env.STRIPE_PRICE_BASIC, PRO: env.STRIPE_PRICE_PRO },
      apiBase: env.STRIPE_API_BASE,
    },
  };
}
