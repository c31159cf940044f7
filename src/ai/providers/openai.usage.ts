import type { TokenUsage } from '../../credits/pricing';

/** OpenAI's `usage` object as chat completions return it. */
export interface OpenAiUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
}

/**
 * `{promptTokens, completionTokens}` from OpenAI's usage. When an OpenAI-compatible server
 * omits usage, the counts are estimated as ceil(characters / 4) rather than charging nothing.
 */
export function normaliseOpenAiUsage(
  usage: OpenAiUsage | null | undefined,
  fallback: { promptChars: number; completionChars: number },
): TokenUsage {
  const whole = (n: number | null | undefined) =>
    Number.isInteger(n) && (n as number) >= 0 ? (n as number) : undefined;
  return {
    promptTokens: whole(usage?.prompt_tokens) ?? Math.ceil(fallback.promptChars / 4),
    completionTokens: whole(usage?.completion_tokens) ?? Math.ceil(fallback.completionChars / 4),
  };
}
