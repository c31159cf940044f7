import Decimal from 'decimal.js';
import type { TokenUsage } from '../models/call.types';
import { type KindPrices, PRICE_KINDS, priceOf, usageKinds } from './price-kinds';

/**
 * The price a call is charged at, chosen once at admission and carried to its settlement:
 * - `spec` (CREDIT_PRICING=spec, the default): every token at the catalogue's `costPerToken`
 *   (USD per token), credits = ceil((promptTokens + completionTokens) × costPerToken × 1000);
 * - `tokens`: each kind of token at its price per million in the price version in force at
 *   admission (`version`), times the caller's plan `markup`:
 *
 *     credits = ceil(markup × Σ_kind tokens_kind × price_kind / 1000)
 *
 *   USD per million tokens × tokens / 10^6 is USD, and one credit of usage is 0.001 USD (the
 *   spec's `× 1000`), hence `/ 1000`. Exact decimals, rounded up once at the end.
 */
export type Tariff = SpecTariff | TokensTariff;
export interface SpecTariff {
  mode: 'spec';
  modelId: string;
  costPerToken: string;
}
export interface TokensTariff {
  mode: 'tokens';
  modelId: string;
  /** The price version's id (`catalogue`, `fallback`, or a `price_versions` row). */
  version: string;
  prices: KindPrices;
  /** The plan's markup, a decimal string > 0. */
  markup: string;
}

/** Credits of usage one USD buys at cost (the spec's `× 1000`). */
export const USAGE_CREDITS_PER_USD = 1000;

const dec = (v: string | number) => new Decimal(typeof v === 'number' ? v.toString() : v);
/** USD per million tokens → credits per token. */
const perToken = (perMillion: string) => dec(perMillion).times(USAGE_CREDITS_PER_USD).div(1e6);

/** The credits of `usage` at `tariff`, exact (not rounded). Throws RangeError on a bad count. */
export function exactCredits(usage: TokenUsage, tariff: Tariff): Decimal {
  const n = usageKinds(usage);
  if (tariff.mode === 'spec')
    return dec(usage.promptTokens + usage.completionTokens)
      .times(dec(tariff.costPerToken))
      .times(USAGE_CREDITS_PER_USD);
  return PRICE_KINDS.reduce(
    (sum, k) => sum.plus(dec(n[k]).times(perToken(priceOf(tariff.prices, k)))),
    new Decimal(0),
  ).times(dec(tariff.markup));
}

/** Credits charged for `usage` (integer): `exactCredits` rounded up. */
export function chargeCredits(usage: TokenUsage, tariff: Tariff): number {
  return exactCredits(usage, tariff).ceil().toNumber();
}

/**
 * The worst case of a call (integer credits): `promptTokens` at the dearest input-side price and
 * `outputTokens` at the dearest output-side price, times the markup, rounded up; so however the
 * provider splits the tokens into kinds, the charge never exceeds it (unless the prompt was
 * undercounted). In `spec` mode, every token at costPerToken.
 */
export function worstCaseCredits(promptTokens: number, outputTokens: number, tariff: Tariff) {
  if (tariff.mode === 'spec')
    return chargeCredits({ promptTokens, completionTokens: outputTokens }, tariff);
  const p = (k: (typeof PRICE_KINDS)[number]) => perToken(priceOf(tariff.prices, k));
  const inputSide = Decimal.max(
    p('input'),
    p('cachedInput'),
    p('cacheWrite5m'),
    p('cacheWrite1h'),
    p('imageInput'),
    p('audioInput'),
  );
  const outputSide = Decimal.max(p('output'), p('reasoning'));
  usageKinds({ promptTokens, completionTokens: outputTokens }); // validates the counts
  return dec(promptTokens)
    .times(inputSide)
    .plus(dec(outputTokens).times(outputSide))
    .times(dec(tariff.markup))
    .ceil()
    .toNumber();
}

/** The estimate before sending (integer): an uncached prompt of `promptTokens`, no output. */
export function estimateCredits(promptTokens: number, tariff: Tariff): number {
  return chargeCredits({ promptTokens, completionTokens: 0 }, tariff);
}

/**
 * Credits the cache reads of `usage` saved (integer ≥ 0): its cost with the cached tokens at the
 * full input price, less its cost. 0 in `spec` mode, where every token has one price.
 */
export function cacheSavings(usage: TokenUsage, tariff: Tariff): number {
  if (tariff.mode === 'spec' || !usage.cachedTokens) return 0;
  const full = chargeCredits({ ...usage, cachedTokens: 0 }, tariff);
  return Math.max(full - chargeCredits(usage, tariff), 0);
}

/**
 * The counts a CONSUMPTION entry records for `usage`: prompt and completion tokens, the cache
 * reads, all cache writes and the reasoning tokens (null when not reported), and `cacheSavings`.
 */
export function ledgerCounts(usage: TokenUsage, tariff: Tariff) {
  return {
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedTokens: usage.cachedTokens ?? null,
    cacheWriteTokens: usage.cacheWriteTokens ?? null,
    reasoningTokens: usage.reasoningTokens ?? null,
    cacheSavings: cacheSavings(usage, tariff),
  };
}
