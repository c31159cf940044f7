import Decimal from 'decimal.js';
import type { TokenUsage } from '../models/call.types';

/**
 * Prices per kind of token (CREDIT_PRICING=tokens): what the provider charges for each kind,
 * times CREDIT_MARKUP, in credits. Prices are USD per thousand tokens and one credit is 0.001 USD
 * (the spec's `tokens × costPerToken × 1000`), so a kind's credits are `tokens × price`:
 *
 *   credits = ceil(markup × Σ_k tokens_k × price_k)
 *
 * exact in decimals, rounded up once at the end. The kinds split the reported counts:
 * input = prompt − cached − cache write, cached input, cache write; output = completion −
 * reasoning, reasoning. A kind without a price takes the input price (input kinds) or the output
 * price (output kinds), never 0; a model without `inputPrice` (`outputPrice`) takes
 * `costPerToken × 1000` for it, so a model with neither is charged as the spec charges it.
 */

/** `spec`: one price per token (costPerToken); `tokens`: a price per kind of token. */
export const CREDIT_PRICING_MODES = ['spec', 'tokens'] as const;
export type CreditPricingMode = (typeof CREDIT_PRICING_MODES)[number];

/** How charges are computed: the mode, and in `tokens` mode the markup (a decimal > 0). */
export interface CreditPricing {
  mode: CreditPricingMode;
  /** Multiplies the provider's price in `tokens` mode (1: at cost); unused in `spec` mode. */
  markup: string | number;
}

/** The spec's pricing, the default wherever no configuration is at hand. */
export const SPEC_PRICING: CreditPricing = { mode: 'spec', markup: 1 };

/** Optional prices per kind, USD per thousand tokens, as decimal strings or numbers. */
export interface KindPrices {
  /** Costs per token in the spec's formula (USD per token); the fallback of the two below. */
  costPerToken: string | number;
  /** Input tokens not read from nor written to a cache. */
  inputPrice?: string | number;
  /** Generated tokens other than reasoning. */
  outputPrice?: string | number;
  /** Input tokens read from the provider's prompt cache (absent: `inputPrice`). */
  cachedInputPrice?: string | number;
  /** Input tokens written to the provider's prompt cache (absent: `inputPrice`). */
  cacheWritePrice?: string | number;
  /** Reasoning (thinking) tokens (absent: `outputPrice`). */
  reasoningPrice?: string | number;
}

// Decimal from the number's shortest decimal string, so 0.000002 is exactly 2e-6.
const dec = (v: string | number) => new Decimal(typeof v === 'number' ? v.toString() : v);

/** The price of every kind, per thousand tokens, fallbacks applied (see the file's comment). */
export function kindPrices(model: KindPrices) {
  const perThousand = dec(model.costPerToken).times(1000);
  const input = model.inputPrice !== undefined ? dec(model.inputPrice) : perThousand;
  const output = model.outputPrice !== undefined ? dec(model.outputPrice) : perThousand;
  const or = (p: string | number | undefined, fallback: Decimal) =>
    p !== undefined ? dec(p) : fallback;
  return {
    input,
    cached: or(model.cachedInputPrice, input),
    cacheWrite: or(model.cacheWritePrice, input),
    output,
    reasoning: or(model.reasoningPrice, output),
  };
}

/**
 * The tokens of each kind in `usage`: a reported part larger than its whole is cut to it (cache
 * reads first, then writes), and an absent part is 0. Throws RangeError on a count that is
 * negative or fractional.
 */
export function tokenKinds(usage: TokenUsage) {
  const whole = (n: number | undefined) => {
    if (n === undefined) return 0;
    if (!Number.isInteger(n) || n < 0)
      throw new RangeError(`token count must be a non-negative integer: ${n}`);
    return n;
  };
  const prompt = whole(usage.promptTokens);
  const completion = whole(usage.completionTokens);
  const cached = Math.min(whole(usage.cachedTokens), prompt);
  const cacheWrite = Math.min(whole(usage.cacheWriteTokens), prompt - cached);
  const reasoning = Math.min(whole(usage.reasoningTokens), completion);
  return {
    input: prompt - cached - cacheWrite,
    cached,
    cacheWrite,
    output: completion - reasoning,
    reasoning,
  };
}

/** `markup × Σ_k tokens_k × price_k`, exact (not rounded): the credits of `usage` in tokens mode. */
export function tokensCredits(usage: TokenUsage, model: KindPrices, markup: string | number) {
  const n = tokenKinds(usage);
  const p = kindPrices(model);
  return dec(n.input)
    .times(p.input)
    .plus(dec(n.cached).times(p.cached))
    .plus(dec(n.cacheWrite).times(p.cacheWrite))
    .plus(dec(n.output).times(p.output))
    .plus(dec(n.reasoning).times(p.reasoning))
    .times(dec(markup));
}

/**
 * The worst case of a call in tokens mode, exact: `markup × (promptTokens × the highest
 * input-side price + outputTokens × the highest output-side price)`, so that however the provider
 * splits the tokens into kinds the charge never exceeds it (unless the prompt was undercounted).
 */
export function tokensWorstCase(
  promptTokens: number,
  outputTokens: number,
  model: KindPrices,
  markup: string | number,
) {
  const p = kindPrices(model);
  return dec(promptTokens)
    .times(Decimal.max(p.input, p.cached, p.cacheWrite))
    .plus(dec(outputTokens).times(Decimal.max(p.output, p.reasoning)))
    .times(dec(markup));
}

/**
 * Credits the cache reads of `usage` saved (integer ≥ 0): what the call would have cost with
 * its cached tokens at the full input price, less what it costs. 0 in `spec` mode, where every
 * token has one price.
 */
export function cacheSavings(usage: TokenUsage, model: KindPrices, pricing: CreditPricing) {
  if (pricing.mode === 'spec' || !usage.cachedTokens) return 0;
  const full = tokensCredits({ ...usage, cachedTokens: 0 }, model, pricing.markup).ceil();
  const charged = tokensCredits(usage, model, pricing.markup).ceil();
  return Decimal.max(full.minus(charged), 0).toNumber();
}

/**
 * The counts a CONSUMPTION entry records for `usage` (RecordedUsage less the model): prompt and
 * completion tokens, the cache reads, cache writes and reasoning tokens (null when not
 * reported), and the credits the cache reads saved (`cacheSavings`).
 */
export function ledgerCounts(usage: TokenUsage, model: KindPrices, pricing: CreditPricing) {
  return {
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedTokens: usage.cachedTokens ?? null,
    cacheWriteTokens: usage.cacheWriteTokens ?? null,
    reasoningTokens: usage.reasoningTokens ?? null,
    cacheSavings: cacheSavings(usage, model, pricing),
  };
}
