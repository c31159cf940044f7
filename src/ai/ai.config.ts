import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { emptyToUndefined, featureEnvironment, toInt } from '../config/feature-environment';

/** The model catalogue file, upstream retries and the SSE heartbeat. */
export class AiEnvironment {
  @IsOptional() @Transform(emptyToUndefined) @IsString() MODELS_FILE?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(10) AI_RETRY_ATTEMPTS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) AI_RETRY_BASE_DELAY_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(10) AI_SSE_PING_MS?: number;
}

/** The `ai` slice of AppConfig. */
export interface AiConfig {
  /** JSON catalogue replacing the default models. */
  modelsFile?: string;
  /** Attempts per upstream call (3) and the base of the backoff (1000 ms). */
  retryAttempts: number;
  retryBaseDelayMs: number;
  /** SSE `: ping` interval until the first token (default 15000 ms). */
  ssePingMs: number;
}

/** The `ai` slice from validated variables. */
export function buildAiConfig(env: AiEnvironment): AiConfig {
  return {
    modelsFile: env.MODELS_FILE,
    retryAttempts: env.AI_RETRY_ATTEMPTS ?? 3,
    retryBaseDelayMs: env.AI_RETRY_BASE_DELAY_MS ?? 1000,
    ssePingMs: env.AI_SSE_PING_MS ?? 15_000,
  };
}

/** The `ai` namespace, built alone from process.env (AppModule registers it from AppConfig). */
export const aiConfig = registerAs('ai', (): AiConfig =>
  buildAiConfig(featureEnvironment(AiEnvironment)),
);
