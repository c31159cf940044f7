import { validateEnv } from './env.validation';

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
  };
  db: {
    /** Undefined: start the embedded PostgreSQL. */
    url?: string;
    migrationsRun: boolean;
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
    adminEmails: string[];
    signupCredits: number;
  };
  openai: { apiKey?: string; baseUrl?: string };
}

const list = (v?: string): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * Builds the typed configuration from raw variables (process.env plus test overrides).
 * Throws an Error naming each invalid variable; in production a missing AUTH_SECRET or
 * DATABASE_URL is such an error.
 */
export function buildConfig(raw: Record<string, string | undefined>): AppConfig {
  const env = validateEnv(raw);
  const nodeEnv = (env.NODE_ENV ?? 'development') as AppConfig['app']['env'];
  return {
    app: {
      env: nodeEnv,
      port: env.PORT ?? 3000,
      baseUrl: (env.APP_BASE_URL ?? 'http://localhost:3000').replace(/\/$/, ''),
      corsOrigins: list(env.CORS_ORIGINS),
      timezone: env.APP_TIMEZONE ?? 'UTC',
      logLevel: env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
      trustProxy: env.TRUST_PROXY ?? false,
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
      adminEmails: list(env.ADMIN_EMAILS).map((e) => e.toLowerCase()),
      signupCredits: env.SIGNUP_CREDITS ?? 100,
    },
    openai: { apiKey: env.OPENAI_API_KEY, baseUrl: env.OPENAI_BASE_URL },
  };
}
