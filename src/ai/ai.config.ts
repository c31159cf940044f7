import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { emptyToUndefined, list, toBool, toInt } from '../config/feature-environment';
import { PLANS, type Plan } from '../users/user.entity';

// `PLAN:tokens` entries, comma-separated; an empty value means "the model's maximum".
const PLAN_CAP = String.raw`\s*(?:${PLANS.join('|')})\s*:\s*(?:[1-9]\d{0,6})?\s*`;
const PLAN_CAPS = new RegExp(String.raw`^${PLAN_CAP}(?:,${PLAN_CAP})*$`);

/** Output caps per plan on the wire protocols when PLAN_MAX_OUTPUT_TOKENS leaves a plan out. */
export const DEFAULT_PLAN_MAX_OUTPUT_TOKENS: Readonly<Record<Plan, number | null>> = {
  FREE: 4096,
  BASIC: 16_384,
  PRO: null,
};

/** What a stream whose client went away does with its provider call (ABORT_MODE). */
export const ABORT_MODES = ['drain', 'cancel'] as const;
export type AbortMode = (typeof ABORT_MODES)[number];

/**
 * The plans' output caps on `/v1`, upstream retries, the SSE heartbeat, cut streams and
 * Anthropic's prompt cache. The providers' keys and base URLs are in the shared slice; the model
 * catalogue (MODELS_FILE, MAX_OUTPUT_TOKENS) is the models module's.
 */
export class AiEnvironment {
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(PLAN_CAPS, {
    message:
      'PLAN_MAX_OUTPUT_TOKENS must be comma-separated PLAN:tokens entries (FREE:4096,BASIC:16384,PRO:)',
  })
  PLAN_MAX_OUTPUT_TOKENS?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(10) AI_RETRY_ATTEMPTS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) AI_RETRY_BASE_DELAY_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(10) AI_SSE_PING_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(600_000) ABORT_DRAIN_MS?: number;
  @IsOptional() @Transform(emptyToUndefined) @IsIn(ABORT_MODES) ABORT_MODE?: AbortMode;
  @IsOptional() @Transform(toBool) @IsBoolean() ANTHROPIC_PROMPT_CACHE?: boolean;
}

/** The `ai` slice. */
export interface AiConfig {
  /**
   * PLAN_MAX_OUTPUT_TOKENS: the most output tokens a wire-protocol request (`/v1`) may ask for,
   * per plan, within the model's maximum; null: the model's maximum alone. Default FREE 4096,
   * BASIC 16384, PRO null.
   */
  planMaxOutputTokens: Record<Plan, number | null>;
  /** Attempts per upstream call (3) and the base of the backoff (1000 ms). */
  retryAttempts: number;
  retryBaseDelayMs: number;
  /** SSE `: ping` interval until the first token (default 15000 ms). */
  ssePingMs: number;
  /**
   * ABORT_MODE: when a stream's client goes away, `drain` (default) keeps reading the provider's
   * reply until its usage arrives, at most `abortDrainMs`, and charges that usage; `cancel`
   * aborts the provider call at once and charges an estimate of what was streamed.
   */
  abortMode: AbortMode;
  /** ABORT_DRAIN_MS: the longest drain after the client left (default 30000 ms). */
  abortDrainMs: number;
  /**
   * ANTHROPIC_PROMPT_CACHE (default false): cache breakpoints on the system prompt and the
   * conversation prefix, so the next turn of a chat reads them from Anthropic's cache.
   */
  anthropicPromptCache: boolean;
}

/** `FREE:4096,PRO:` (validated) over the defaults: an empty value is null (no plan cap). */
export function parsePlanCaps(value: string | undefined): Record<Plan, number | null> {
  const caps = { ...DEFAULT_PLAN_MAX_OUTPUT_TOKENS };
  for (const entry of list(value)) {
    const [plan, tokens] = entry.split(':').map((s) => s.trim());
    caps[plan as Plan] = tokens ? Number(tokens) : null;
  }
  return caps;
}

/** The `ai` slice from validated variables. */
export function buildAiConfig(env: AiEnvironment): AiConfig {
  return {
    planMaxOutputTokens: parsePlanCaps(env.PLAN_MAX_OUTPUT_TOKENS),
    retryAttempts: env.AI_RETRY_ATTEMPTS ?? 3,
    retryBaseDelayMs: env.AI_RETRY_BASE_DELAY_MS ?? 1000,
    ssePingMs: env.AI_SSE_PING_MS ?? 15_000,
    abortMode: env.ABORT_MODE ?? 'drain',
    abortDrainMs: env.ABORT_DRAIN_MS ?? 30_000,
    anthropicPromptCache: env.ANTHROPIC_PROMPT_CACHE ?? false,
  };
}

/** The `ai` slice, read by its module with `@Inject(aiConfig.KEY)`. */
export const aiConfig = defineConfigSlice({
  name: 'ai',
  environment: AiEnvironment,
  build: buildAiConfig,
});
