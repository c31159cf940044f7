import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import {
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import {
  emptyToUndefined,
  featureEnvironment,
  HTTP_URL,
  toInt,
  type WithNodeEnv,
} from './feature-environment';

/**
 * The values several modules need, and only those: the service's secrets, the session lifetime,
 * the credit prices, the sign-up grant (auth grants it, ai's admission explains a refusal with
 * it), the model providers' credentials (ai calls them, models knows which are keyed) and the
 * embeddings model of chat search (search is on with it, ai embeds with it). A value one module
 * reads stays in that module's slice.
 */
export class SharedEnvironment implements WithNodeEnv {
  /** Read for the production rules; validated by AppEnvironment. */
  NODE_ENV?: string;
  @ValidateIf((o: SharedEnvironment) => o.NODE_ENV === 'production' || o.AUTH_SECRET !== undefined)
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(32, { message: 'AUTH_SECRET must be at least 32 characters' })
  AUTH_SECRET?: string;
  /** AES-256-GCM key for secrets at rest: 32 bytes, standard base64. */
  @ValidateIf(
    (o: SharedEnvironment) => o.NODE_ENV === 'production' || o.ENCRYPTION_KEY !== undefined,
  )
  @Transform(emptyToUndefined)
  @IsString({ message: 'ENCRYPTION_KEY is required in production' })
  @Matches(/^[A-Za-z0-9+/]{43}=$/, {
    message:
      'ENCRYPTION_KEY must be 32 bytes in base64 (44 characters), e.g. `openssl rand -base64 32`',
  })
  ENCRYPTION_KEY?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(60) AUTH_SESSION_MAX_AGE?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) CREDITS_PER_USD?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) CREDITS_PER_CNY?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) SIGNUP_CREDITS?: number;
  @IsOptional() @Transform(emptyToUndefined) @IsString() OPENAI_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) OPENAI_BASE_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() ANTHROPIC_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) ANTHROPIC_BASE_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() GEMINI_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GEMINI_BASE_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() @MaxLength(200) EMBEDDINGS_MODEL?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(8) @Max(3072) EMBEDDINGS_DIMENSIONS?: number;
}

/** API key and optional base URL (a local server in tests) of one model provider. */
export interface ProviderCredentials {
  apiKey?: string;
  baseUrl?: string;
}

/** The `shared` slice: injected with `@Inject(sharedConfig.KEY)` by any module. */
export interface SharedConfig {
  /**
   * AUTH_SECRET: signs sessions, OAuth state and upload links. Required in production; elsewhere
   * a development value kept in `.data/auth-secret` (loadConfig resolves it before modules boot).
   */
  authSecret: string;
  /**
   * ENCRYPTION_KEY: AES-256-GCM key (32 bytes, base64) for secrets at rest (two-factor secrets,
   * plugin and upstream keys). Required in production; elsewhere kept in `.data/encryption-key`.
   */
  encryptionKey: string;
  /** AUTH_SESSION_MAX_AGE: session lifetime in seconds (default 2592000, 30 days). */
  sessionMaxAge: number;
  /** Most credits one USD (CREDITS_PER_USD, default 100) and one CNY (CREDITS_PER_CNY, 14) buy. */
  creditsPerUsd: number;
  creditsPerCny: number;
  /** BONUS credits granted once, when the address is verified (SIGNUP_CREDITS, default 100). */
  signupCredits: number;
  /** OPENAI_*, ANTHROPIC_*, GEMINI_*: each model provider's key and base URL. */
  providers: {
    openai: ProviderCredentials;
    anthropic: ProviderCredentials;
    gemini: ProviderCredentials;
  };
  /** The embeddings of chat search (docs/search.md). */
  embeddings: {
    /** EMBEDDINGS_MODEL: catalogue id of an `embedding` model; unset: semantic search is off. */
    model?: string;
    /** EMBEDDINGS_DIMENSIONS: vector length asked of the provider (default 256). */
    dimensions: number;
  };
}

/**
 * The `shared` slice from validated variables. The secrets are as configured (empty outside
 * production when unset) until `loadConfig` resolves the development ones.
 */
export function buildSharedConfig(env: SharedEnvironment): SharedConfig {
  return {
    authSecret: env.AUTH_SECRET ?? '',
    encryptionKey: env.ENCRYPTION_KEY ?? '',
    sessionMaxAge: env.AUTH_SESSION_MAX_AGE ?? 2592000,
    creditsPerUsd: env.CREDITS_PER_USD ?? 100,
    creditsPerCny: env.CREDITS_PER_CNY ?? 14,
    signupCredits: env.SIGNUP_CREDITS ?? 100,
    providers: {
      openai: { apiKey: env.OPENAI_API_KEY, baseUrl: env.OPENAI_BASE_URL },
      anthropic: { apiKey: env.ANTHROPIC_API_KEY, baseUrl: env.ANTHROPIC_BASE_URL },
      gemini: { apiKey: env.GEMINI_API_KEY, baseUrl: env.GEMINI_BASE_URL },
    },
    embeddings: { model: env.EMBEDDINGS_MODEL, dimensions: env.EMBEDDINGS_DIMENSIONS ?? 256 },
  };
}

/** The `shared` namespace, built alone from process.env (the app's comes from one load). */
export const sharedConfig = registerAs('shared', (): SharedConfig =>
  buildSharedConfig(featureEnvironment(SharedEnvironment)),
);
