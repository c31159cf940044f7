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
 * `cacheWriteTokens` those written to it (Anthropic `cache_creation_input_tokens`; OpenAI and
 * Gemini report none), both already part of `promptTokens`. With CREDIT_PRICING=tokens each
 * kind has its own price, so these counts are part of the charge.
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
  /** Of `prompt_tokens`, those read from the prompt cache. */
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
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
  };
}

/**
 * Anthropic's input-side usage: `message.usage` of a reply, or of the stream's `message_start`.
 * Cache writes and reads are billed input tokens too, so they count as prompt tokens.
 */
export interface AnthropicInputUsage {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
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
  return {
    promptTokens:
      inputTokens === undefined
        ? estimate(fallback.promptChars)
        : inputTokens +
          (whole(input?.cache_creation_input_tokens) ?? 0) +
          (whole(input?.cache_read_input_tokens) ?? 0),
    completionTokens: whole(lastOutputTokens) ?? estimate(fallback.completionChars),
    ...reasoning(thinkingTokens),
    ...(inputTokens === undefined
      ? {}
      : {
          ...cached(input?.cache_read_input_tokens),
          ...cacheWrite(input?.cache_creation_input_tokens),
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
  };
}
