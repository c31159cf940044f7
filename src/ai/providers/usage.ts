import { codePoints } from '../../common/text/code-points';
import type { ChatMessageInput } from '../../credits/pricing';
import type { TokenUsage } from '../../models/call.types';

/**
 * Usage normalisation for every provider: each SDK reports tokens in its own shape, and all of
 * them become `{promptTokens, completionTokens}` (non-negative integers, the basis of the charge).
 * A count the provider leaves out is estimated as ceil(characters / 4) rather than charged as 0.
 *
 * Reasoning models bill their reasoning tokens as completion tokens (spec v1.1.0 "newer model
 * families"). Where they sit differs per provider, so each rule is here:
 * - OpenAI `completion_tokens` already includes `completion_tokens_details.reasoning_tokens`;
 * - Anthropic `output_tokens` already includes the thinking (`output_tokens_details.thinking_tokens`);
 * - Gemini `candidatesTokenCount` does NOT include `thoughtsTokenCount`: they are added.
 * `reasoningTokens` reports that part for information; it is never added a second time.
 * `cachedTokens` likewise reports the prompt tokens read from the provider's cache (OpenAI
 * `prompt_tokens_details.cached_tokens`, or `input_tokens_details.cached_tokens` in the
 * Responses shape, Anthropic `cache_read_input_tokens`, Gemini `cachedContentTokenCount`), and
 * `cacheWriteTokens` those written to it (Anthropic `cache_creation.ephemeral_5m_input_tokens` +
 * `ephemeral_1h_input_tokens`, or the older flat `cache_creation_input_tokens`, all 5-minute
 * writes; OpenAI and Gemini report none), both already part of `promptTokens`;
 * `cacheWrite1hTokens` is the 1-hour part of the writes. Audio and image input tokens come from
 * OpenAI `prompt_tokens_details.audio_tokens` and Gemini `promptTokensDetails` by modality.
 *
 * Where the cache sits differs too: OpenAI's `prompt_tokens` and Gemini's `promptTokenCount`
 * INCLUDE the cached tokens, while Anthropic's `input_tokens` EXCLUDES both cache reads and
 * writes (they are added). With CREDIT_PRICING=tokens each kind has its own price
 * (src/prices/tariff.ts), which splits these counts so that no kind is ever negative.
 */

/** Characters (Unicode code points) of the prompt and the reply, for the fallback estimate. */
export interface UsageFallback {
  promptChars: number;
  completionChars: number;
}

/** The fallback input of a call: all message contents, and the reply text received so far. */
export function usageFallback(messages: ChatMessageInput[], replyText: string): UsageFallback {
  return {
    promptChars: messages.reduce((n, m) => n + codePoints(m.content), 0),
    completionChars: codePoints(replyText),
  };
}

/** A count as sent, or undefined when absent, negative or fractional. */
const whole = (n: number | null | undefined): number | undefined =>
  Number.isInteger(n) && (n as number) >= 0 ? (n as number) : undefined;

const estimate = (chars: number): number => Math.ceil(chars / 4);

/** OpenAI's `usage` object (chat completions, and the last streamed chunk with `include_usage`). */
export interface OpenAiUsage {
  prompt_tokens?: number | null;
  /** Includes the reasoning tokens. */
  completion_tokens?: number | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** Of `prompt_tokens`, those read from the prompt cache, and the audio input tokens. */
  prompt_tokens_details?: { cached_tokens?: number | null; audio_tokens?: number | null } | null;
  /** The Responses API's name for `prompt_tokens_details`, which some compatible servers send. */
  input_tokens_details?: { cached_tokens?: number | null } | null;
}

/** `{reasoningTokens}` when a count was reported, else nothing (no key). */
const reasoning = (n: number | null | undefined): { reasoningTokens?: number } => {
  const count = whole(n);
  return count === undefined ? {} : { reasoningTokens: count };
};

/** `{cachedTokens}` when some were reported read from the cache, else nothing (no key). */
const cached = (n: number | null | undefined): { cachedTokens?: number } => {
  const count = whole(n);
  return count ? { cachedTokens: count } : {};
};

/** `{cacheWriteTokens}` when some were reported written to the cache, else nothing (no key). */
const cacheWrite = (n: number | null | undefined): { cacheWriteTokens?: number } => {
  const count = whole(n);
  return count ? { cacheWriteTokens: count } : {};
};

/**
 * `{promptTokens, completionTokens}` from OpenAI's usage. When an OpenAI-compatible server
 * omits usage, the counts are estimated as ceil(characters / 4) rather than charging nothing.
 */
export function normaliseOpenAiUsage(
  usage: OpenAiUsage | null | undefined,
  fallback: UsageFallback,
): TokenUsage {
  return {
    promptTokens: whole(usage?.prompt_tokens) ?? estimate(fallback.promptChars),
    completionTokens: whole(usage?.completion_tokens) ?? estimate(fallback.completionChars),
    ...reasoning(usage?.completion_tokens_details?.reasoning_tokens),
    ...cached(
      usage?.prompt_tokens_details?.cached_tokens ?? usage?.input_tokens_details?.cached_tokens,
    ),
    ...part('audioTokens', usage?.prompt_tokens_details?.audio_tokens),
  };
}

/** `{[key]: n}` when a positive count was reported, else nothing (no key). */
function part<K extends string>(key: K, n: number | null | undefined): Partial<Record<K, number>> {
  const count = whole(n);
  return count ? ({ [key]: count } as Record<K, number>) : {};
}

/**
 * Anthropic's input-side usage: `message.usage` of a reply, or of the stream's `message_start`.
 * Cache writes and reads are billed input tokens too, so they count as prompt tokens.
 */
export interface AnthropicInputUsage {
  /** Uncached input tokens only: cache reads and writes are NOT part of it. */
  input_tokens?: number | null;
  /** Every cache write, whatever its lifetime (the only write count of older API versions). */
  cache_creation_input_tokens?: number | null;
  /** The writes by lifetime (current API versions); their sum is `cache_creation_input_tokens`. */
  cache_creation?: {
    ephemeral_5m_input_tokens?: number | null;
    ephemeral_1h_input_tokens?: number | null;
  } | null;
  cache_read_input_tokens?: number | null;
}

/**
 * Anthropic's cache writes: by lifetime when `cache_creation` breaks them down (the larger of
 * their sum and the flat count, so a partial breakdown never lowers the total), else the flat
 * `cache_creation_input_tokens`, all 5-minute writes (the only lifetime before 1-hour writes).
 */
function anthropicWrites(input: AnthropicInputUsage | null | undefined) {
  const flat = whole(input?.cache_creation_input_tokens) ?? 0;
  const oneHour = whole(input?.cache_creation?.ephemeral_1h_input_tokens) ?? 0;
  const fiveMin = whole(input?.cache_creation?.ephemeral_5m_input_tokens) ?? 0;
  return { total: Math.max(flat, fiveMin + oneHour), oneHour };
}

/**
 * `{promptTokens, completionTokens}` from Anthropic's usage. `lastOutputTokens` is the reply's
 * `usage.output_tokens`, or in a stream the LAST `message_delta.usage.output_tokens`: that value
 * is cumulative, so the deltas must never be summed. It includes the extended-thinking tokens;
 * `thinkingTokens` (`output_tokens_details.thinking_tokens`, of the same event) only reports them.
 */
export function normaliseAnthropicUsage(
  input: AnthropicInputUsage | null | undefined,
  lastOutputTokens: number | null | undefined,
  fallback: UsageFallback,
  thinkingTokens?: number | null,
): TokenUsage {
  const inputTokens = whole(input?.input_tokens);
  const writes = anthropicWrites(input);
  return {
    promptTokens:
      inputTokens === undefined
        ? estimate(fallback.promptChars)
        : inputTokens + writes.total + (whole(input?.cache_read_input_tokens) ?? 0),
    completionTokens: whole(lastOutputTokens) ?? estimate(fallback.completionChars),
    ...reasoning(thinkingTokens),
    ...(inputTokens === undefined
      ? {}
      : {
          ...cached(input?.cache_read_input_tokens),
          ...cacheWrite(writes.total),
          ...part('cacheWrite1hTokens', writes.oneHour),
        }),
  };
}

/** Gemini's `usageMetadata` (a reply, or the last streamed chunk). Zero counts may be omitted. */
export interface GeminiUsageMetadata {
  promptTokenCount?: number | null;
  candidatesTokenCount?: number | null;
  /** Thinking tokens: billed as output, and not included in `candidatesTokenCount`. */
  thoughtsTokenCount?: number | null;
  /** Of `promptTokenCount`, the tokens read from cached content. */
  cachedContentTokenCount?: number | null;
  /** Of `promptTokenCount`, the tokens by modality (`TEXT`, `IMAGE`, `AUDIO`, `VIDEO`). */
  promptTokensDetails?: { modality?: string | null; tokenCount?: number | null }[] | null;
}

/** The prompt tokens of `modality` in Gemini's `promptTokensDetails` (0 when absent). */
function geminiModality(usage: GeminiUsageMetadata | null | undefined, modality: string): number {
  return (usage?.promptTokensDetails ?? [])
    .filter((d) => d?.modality === modality)
    .reduce((sum, d) => sum + (whole(d.tokenCount) ?? 0), 0);
}

/**
 * `{promptTokens, completionTokens}` from Gemini's usageMetadata: completion tokens are
 * `candidatesTokenCount + thoughtsTokenCount`, either of which may be absent (zero). Only when
 * both are absent, or there is no usageMetadata at all, are the counts estimated.
 */
export function normaliseGeminiUsage(
  usage: GeminiUsageMetadata | null | undefined,
  fallback: UsageFallback,
): TokenUsage {
  const candidates = whole(usage?.candidatesTokenCount);
  const thoughts = whole(usage?.thoughtsTokenCount);
  return {
    promptTokens: whole(usage?.promptTokenCount) ?? estimate(fallback.promptChars),
    completionTokens:
      candidates === undefined && thoughts === undefined
        ? estimate(fallback.completionChars)
        : (candidates ?? 0) + (thoughts ?? 0),
    ...reasoning(thoughts),
    ...cached(usage?.cachedContentTokenCount),
    ...part('imageTokens', geminiModality(usage, 'IMAGE')),
    ...part('audioTokens', geminiModality(usage, 'AUDIO')),
  };
}
