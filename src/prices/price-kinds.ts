import type { TokenUsage } from '../models/call.types';

/**
 * The kinds of tokens a provider prices apart, and how a call's usage splits into them.
 *
 * Input side (parts of `promptTokens`): `cachedInput` (read from the prompt cache),
 * `cacheWrite5m` and `cacheWrite1h` (written to it for 5 minutes or 1 hour), `imageInput`,
 * `audioInput`, and `input` (the rest). Output side (parts of `completionTokens`): `reasoning`
 * (thinking) and `output` (the rest).
 */
export const PRICE_KINDS = [
  'input',
  'cachedInput',
  'cacheWrite5m',
  'cacheWrite1h',
  'output',
  'reasoning',
  'imageInput',
  'audioInput',
] as const;
export type PriceKind = (typeof PRICE_KINDS)[number];

/**
 * Prices of one model, USD per million tokens, as decimal strings (`"0.15"`, never a float).
 * `input` and `output` are required; a kind without a price falls back (`PRICE_FALLBACKS`).
 */
export type KindPrices = { input: string; output: string } & Partial<
  Record<Exclude<PriceKind, 'input' | 'output'>, string>
>;

/**
 * The price a kind without its own takes, in order: cache reads, 5-minute writes, image and
 * audio input at the input price; 1-hour writes at the 5-minute write price (else input); reasoning
 * at the output price, which is how every provider bills it today.
 */
export const PRICE_FALLBACKS: Record<PriceKind, PriceKind[]> = {
  input: [],
  output: [],
  cachedInput: ['input'],
  cacheWrite5m: ['input'],
  cacheWrite1h: ['cacheWrite5m', 'input'],
  reasoning: ['output'],
  imageInput: ['input'],
  audioInput: ['input'],
};

/** The price of `kind` in `prices`, fallbacks applied (a decimal string, USD per million). */
export function priceOf(prices: KindPrices, kind: PriceKind): string {
  for (const k of [kind, ...PRICE_FALLBACKS[kind]]) {
    const p = prices[k];
    if (p !== undefined) return p;
  }
  return prices.input;
}

/** Every kind's price, fallbacks applied. */
export function fullPrices(prices: KindPrices): Record<PriceKind, string> {
  return Object.fromEntries(PRICE_KINDS.map((k) => [k, priceOf(prices, k)])) as Record<
    PriceKind,
    string
  >;
}

/** Tokens of each kind in one call (non-negative integers). */
export type KindTokens = Record<PriceKind, number>;

/**
 * The tokens of each kind in `usage`. A reported part larger than what is left of its whole is
 * cut to it, in this order: cache reads, cache writes (the 1-hour part within them), image,
 * audio; reasoning within completion. So no kind is ever negative, whatever a provider sends.
 * Throws RangeError on a count that is negative or fractional.
 */
export function usageKinds(usage: TokenUsage): KindTokens {
  const prompt = whole(usage.promptTokens);
  const completion = whole(usage.completionTokens);
  let left = prompt;
  const take = (n: number | undefined) => {
    const t = Math.min(whole(n), left);
    left -= t;
    return t;
  };
  const cachedInput = take(usage.cachedTokens);
  const writes = take(usage.cacheWriteTokens);
  const cacheWrite1h = Math.min(whole(usage.cacheWrite1hTokens), writes);
  const imageInput = take(usage.imageTokens);
  const audioInput = take(usage.audioTokens);
  const reasoning = Math.min(whole(usage.reasoningTokens), completion);
  return {
    input: left,
    cachedInput,
    cacheWrite5m: writes - cacheWrite1h,
    cacheWrite1h,
    output: completion - reasoning,
    reasoning,
    imageInput,
    audioInput,
  };
}

function whole(n: number | undefined): number {
  if (n === undefined) return 0;
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`token count must be a non-negative integer: ${n}`);
  return n;
}
