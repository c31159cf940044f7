import type { StorageDriver, UploadContentType } from './env.validation';

/** Typed configuration, validated once at boot; read with `ConfigService<AppConfig, true>`. */
export interface AppConfig {
  app: {
    env: 'development' | 'production' | 'test';
    port: number;
    baseUrl: string;
    corsOrigins: string[];
    timezone: string;
    logLevel: string;
    trustProxy: boolean;
    /** Worker processes sharing the port (WEB_CONCURRENCY; default: the CPUs). 1: no primary. */
    workers: number;
  };
  /** Prometheus metrics and graceful shutdown. */
  ops: {
    /** Bearer token of /metrics (METRICS_TOKEN); undefined: none asked. */
    metricsToken?: string;
    /** METRICS_PORT: metrics on this port only (not on the API port); 0 picks a free one. */
    metricsPort?: number;
    /** SHUTDOWN_GRACE_MS (default 10 000): how long open streams may finish after SIGTERM. */
    shutdownGraceMs: number;
  };
  db: {
    /** Undefined: start the embedded PostgreSQL. */
    url?: string;
    migrationsRun: boolean;
    /** Connections of each worker's pool (DB_POOL_SIZE): the total is workers × this. */
    poolSize: number;
    embeddedDir: string;
    embeddedPort: number;
  };
  auth: {
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
     * AES-256-GCM key (32 bytes, base64) for secrets at rest; undefined outside production until
     * resolved by `resolveEncryptionKey`.
     */
    encryptionKey?: string;
  };
  /** Transactional mail (src/mail). */
  mail: {
    /** SMTP_URL (`smtp://user:pass@host:587`); unset outside production: `.eml` files in `dir`. */
    smtpUrl?: string;
    /** MAIL_FROM: the From header (default `AI Chat <no-reply@localhost>`). */
    from: string;
    /** MAIL_DIR: absolute folder of the `.eml` files without SMTP_URL (default `.data/mail`). */
    dir: string;
  };
  twoFactor: {
    /** Issuer shown by authenticator apps (TWO_FACTOR_ISSUER, default `AI Chat`). */
    issuer: string;
    /** Failed codes per user, and per client IP, before 429 (default 5). */
    maxFailures: number;
    /** How long failures count, and a lockout lasts, in seconds (default 900). */
    lockoutSeconds: number;
  };
  /** Social login (spec Authentication 2–3); a provider without id and secret is not offered. */
  oauth: { google: OAuthClientConfig; github: OAuthClientConfig };
  openai: ProviderConfig;
  anthropic: ProviderConfig;
  gemini: ProviderConfig;
  ai: {
    /** JSON catalogue replacing the default models. */
    modelsFile?: string;
    /** Spec Limits 6: attempts per upstream call (3) and the base of the backoff (1000 ms). */
    retryAttempts: number;
    retryBaseDelayMs: number;
    /** SSE `: ping` interval until the first token (default 15000 ms). */
    ssePingMs: number;
  };
  credits: {
    /** Holds older than this are returned by the sweep (seconds, default 600). */
    holdTtlSeconds: number;
    /**
     * How often an instance without the job queue (JOBS_ENABLED=false) sweeps expired holds on its
     * own timer (ms, default 60000); with the queue the sweep is a job scheduled every minute.
     */
    holdSweepIntervalMs: number;
    /** Largest single credit purchase, USD (default 1000). */
    purchaseMaxUsd: number;
    /** Most credits one USD may buy (default 100). */
    creditsPerUsd: number;
    /** Largest single credit purchase, CNY (default 7000). */
    purchaseMaxCny: number;
    /** Most credits one CNY may buy (default 14). */
    creditsPerCny: number;
    /** A purchase still pending after this many seconds is checked against Stripe (default 7200). */
    purchaseRecheckSeconds: number;
  };
  /** Referral rewards, in credits. */
  referrals: {
    /** Granted to a referred user once their address is verified (default 0). */
    signupBonus: number;
    /** Granted to the referrer at the referred user's first paid purchase (default 100). */
    reward: number;
    /** Most rewards one referrer earns per calendar month, UTC (default 20). */
    monthlyCap: number;
    /** Smallest first payment, USD major units, that earns the reward (default 5). */
    minPaymentUsd: number;
    /** The same in CNY (default: the USD minimum at CREDITS_PER_USD / CREDITS_PER_CNY). */
    minPaymentCny: number;
  };
  teams: {
    /** Days before a team invitation expires (default 7). */
    invitationTtlDays: number;
  };
  /** The job queue (src/jobs, pg-boss in schema `pgboss` of the service's database). */
  jobs: {
    /** JOBS_ENABLED (default true): start pg-boss and its workers on this instance. */
    enabled: boolean;
    /** How often an idle worker looks for jobs (seconds, default 2; at least 0.5). */
    pollIntervalSeconds: number;
    /** How often expired or silent jobs are retried and old ones archived (seconds, default 60). */
    superviseIntervalSeconds: number;
    /** Connections of pg-boss's own pool (default 4). */
    poolSize: number;
  };
  /** Chat search (docs/search.md). */
  search: {
    /** EMBEDDINGS_MODEL: catalogue id of an `embedding` model; unset: semantic search is off. */
    embeddingsModel?: string;
    /** EMBEDDINGS_DIMENSIONS: vector length asked of the provider (default 256). */
    dimensions: number;
    /** SEARCH_INDEX_DELAY_SECONDS: messages saved within this window are embedded as one job (default 5). */
    indexDelaySeconds: number;
  };
  tasks: {
    /** How often a running run checks whether it was cancelled (ms, default 1000). */
    cancelPollMs: number;
    /** A run's job is retried elsewhere when its worker is silent this long (s, default 30). */
    runHeartbeatSeconds: number;
    /** Manual runs (`POST /api/tasks/{id}/run`) one user may ask for per minute (default 10). */
    manualRunsPerMinute: number;
    /** Seconds before a failed run job's first retry, doubling after (default 5). */
    runRetryDelaySeconds: number;
  };
  /** Plugins (docs/plugins.md). */
  plugins: {
    /** PLUGIN_TOOL_TIMEOUT_MS: longest connect, `tools/list` or `tools/call` of an MCP server (default 15000). */
    toolTimeoutMs: number;
    /**
     * PLUGIN_ALLOWED_HOSTS: `host` or `host:port` entries (lower-cased) exempt from the SSRF
     * address rules and allowed over http; default none.
     */
    allowedHosts: string[];
  };
  uploads: {
    /** Where the bytes go: `disk` (in `dir`) or `s3` (in `s3`); STORAGE_DRIVER, default disk. */
    driver: StorageDriver;
    /** Absolute directory the local disk driver stores files in (UPLOAD_DIR, default `uploads`). */
    dir: string;
    /** The bucket of the s3 driver; set when `driver` is `s3`. */
    s3?: S3StorageConfig;
    /** Largest accepted file in bytes (default 10485760 = 10 MiB); larger → 413. */
    maxBytes: number;
    /** Content types accepted after magic-byte sniffing (default: all of UPLOAD_CONTENT_TYPES). */
    allowedTypes: UploadContentType[];
    /** Lifetime of a signed `/uploads/` link in seconds (UPLOAD_URL_TTL_SECONDS, default 3600). */
    urlTtlSeconds: number;
    /**
     * Download misses (404) per client IP in a minute before `/uploads/` answers 429
     * (UPLOAD_MISS_LIMIT_PER_MINUTE, default 20); successful downloads are not counted.
     */
    missLimitPerMinute: number;
    /**
     * Bytes one user's stored uploads may add up to (UPLOAD_QUOTA_BYTES, default 1073741824 =
     * 1 GiB); the upload that would pass it → 413 UPLOAD_QUOTA_EXCEEDED, nothing stored.
     */
    quotaBytes: number;
    /**
     * Upload attempts per user in an hour before POST /api/upload answers 429 RATE_LIMITED
     * (UPLOAD_RATE_PER_HOUR, default 100).
     */
    ratePerHour: number;
  };
  pages: {
    /** Absolute static frontend folder allowed page requests are served from (FRONTEND_DIR). */
    frontendDir?: string;
  };
  stripe: {
    secretKey?: string;
    publishableKey?: string;
    webhookSecret?: string;
    /** Price ids by plan. */
    prices: { BASIC?: string; PRO?: string };
    /** Local base such as `http://127.0.0.1:12111` (tests). */
    apiBase?: string;
  };
}

/** One OAuth 2.0 provider: client credentials and endpoints (defaults: the real ones). */
export interface OAuthClientConfig {
  clientId?: string;
  clientSecret?: string;
  authorizationUrl: string;
  tokenUrl: string;
  /** Google: the OpenID userinfo endpoint; GitHub: `GET /user`. */
  profileUrl: string;
  /** GitHub only: `GET /user/emails`. */
  emailsUrl?: string;
}

/** The S3 (or S3-compatible) bucket uploads are stored in (STORAGE_DRIVER=s3). */
export interface S3StorageConfig {
  bucket: string;
  /** S3_REGION, default `us-east-1`. */
  region: string;
  /** S3_ENDPOINT of a compatible store such as MinIO; undefined = AWS. */
  endpoint?: string;
  /** `http://endpoint/bucket/key` instead of `http://bucket.endpoint/key` (S3_FORCE_PATH_STYLE). */
  forcePathStyle: boolean;
  /** Static credentials (both or neither); undefined = the SDK's default credential chain. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Prepended to every object key verbatim, e.g. `uploads/` (S3_KEY_PREFIX, default none). */
  keyPrefix: string;
}

/** API key and optional base URL of one model provider. */
export interface ProviderConfig {
  apiKey?: string;
  baseUrl?: string;
}
