import { MAX_OUTPUT_TOKENS_CEILING } from '../common/limits';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

export const PROVIDER_IDS = ['openai', 'anthropic', 'google'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];
/** What a model can do beyond text in, text out. More kinds (e.g. embeddings) may follow. */
export const CAPABILITIES = ['vision', 'tools', 'reasoning', 'structured_output'] as const;
export type Capability = (typeof CAPABILITIES)[number];
/** `chat` (the default) answers messages; `embedding` turns text into vectors (chat search). */
export const MODEL_KINDS = ['chat', 'embedding'] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];
/** Providers whose adapter can embed (Anthropic has no embeddings API). */
export const EMBEDDING_PROVIDERS: readonly ProviderId[] = ['openai', 'google'];
/** Anthropic's smallest thinking budget (`budget_tokens` ≥ 1024). */
export const MIN_REASONING_BUDGET = 1024;
/** A catalogue entry's `maxOutputTokens` when it states none (and its context window allows). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/** Most fallback models of a catalogue entry or of a request's `models`. */
export const MAX_FALLBACK_MODELS = 5;

/** One catalogue entry as configured (MODELS_FILE is a JSON array of these). */
export class ModelEntry {
  @IsString() @MaxLength(200) id: string;
  @IsString() @MaxLength(200) name: string;
  @IsIn(PROVIDER_IDS) providerId: ProviderId;
  /** Context window, tokens. */
  @IsInt() @Min(1) maxTokens: number;
  /**
   * Most tokens the model generates in one reply, as its provider documents it, thinking
   * included: a request's visible `maxTokens` may reach this less the `reasoningBudget`. At most
   * the context window; default 4096 (or the context window when smaller).
   */
  @IsOptional() @IsInt() @Min(1) @Max(MAX_OUTPUT_TOKENS_CEILING) maxOutputTokens?: number;
  /** Decimal string or number > 0; credits = ceil(tokens * costPerToken * 1000). */
  @Matches(/^\d+(\.\d+)?(e-?\d+)?$/i, { message: 'costPerToken must be a positive decimal' })
  costPerToken: string;
  @IsOptional() @IsString() @MaxLength(1000) description?: string;
  /**
   * Prices per kind of token, USD per thousand tokens (the spec's extended descriptor). With
   * CREDIT_PRICING=spec they are informational; with `tokens` each kind is charged at its own
   * price (src/credits/token-pricing.ts). A kind without one takes `inputPrice` (input kinds)
   * or `outputPrice` (output kinds); without those, `costPerToken × 1000`.
   */
  /** Input tokens not read from nor written to the provider's prompt cache. */
  @IsOptional() @IsNumber() @Min(0) inputPrice?: number;
  /** Generated tokens, reasoning excepted. */
  @IsOptional() @IsNumber() @Min(0) outputPrice?: number;
  /** Input tokens read from the provider's prompt cache. */
  @IsOptional() @IsNumber() @Min(0) cachedInputPrice?: number;
  /** Input tokens written to the provider's prompt cache (for 5 minutes, where lifetimes differ). */
  @IsOptional() @IsNumber() @Min(0) cacheWritePrice?: number;
  /** Input tokens written to the prompt cache for 1 hour (Anthropic: 2× input); absent: `cacheWritePrice`. */
  @IsOptional() @IsNumber() @Min(0) cacheWrite1hPrice?: number;
  /** Reasoning (thinking) tokens. */
  @IsOptional() @IsNumber() @Min(0) reasoningPrice?: number;
  /** `vision`, `tools`, `reasoning`; none when absent. */
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(CAPABILITIES, { each: true })
  capabilities?: Capability[];
  /**
   * Reasoning models: the thinking tokens allowed per request on top of `maxTokens`, sent to the
   * provider (OpenAI max_completion_tokens, Anthropic thinking.budget_tokens, Gemini
   * thinkingBudget) and held as completion tokens. Required with `reasoning`, at least 1024.
   */
  @IsOptional() @IsInt() @Min(MIN_REASONING_BUDGET) reasoningBudget?: number;
  /**
   * `embedding` models are never offered for chat (`/api/ai/models`, the `/v1/models` list,
   * admission); they serve EMBEDDINGS_MODEL and `/v1/embeddings`, priced by `costPerToken` on
   * input tokens (with CREDIT_PRICING=tokens, by `inputPrice`). Default `chat`.
   */
  @IsOptional() @IsIn(MODEL_KINDS) kind?: ModelKind;

  // Routing: the models that answer when this one's upstreams all fail.
  /**
   * Chat models (catalogue ids, not this one) tried in order when every upstream of this model
   * failed with a retryable error; a request's `models` replaces them. At most 5.
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_FALLBACK_MODELS)
  @ArrayUnique()
  @IsString({ each: true })
  fallbacks?: string[];
}
