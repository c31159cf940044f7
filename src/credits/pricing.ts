import Decimal from 'decimal.js';
import { codePoints } from '../common/text/code-points';
import { promptTextTokens } from '../models/token-estimate';
import {
  type CreditPricing,
  type KindPrices,
  SPEC_PRICING,
  tokenKinds,
  tokensCredits,
  tokensWorstCase,
} from './token-pricing';
import type { TokenUsage } from '../models/call.types';

export type { CreditPricing } from './token-pricing';

/**
 * The part of a model descriptor that pricing needs (spec "Model descriptor"): `costPerToken`,
 * and the optional prices per kind of token that CREDIT_PRICING=tokens reads (see
 * token-pricing.ts).
 */
export type PricedModel = KindPrices;

export interface ChatMessageInput {
  role: string;
  content: string;
}

// Decimal built from the number's shortest decimal string, so 0.000002 is exactly 2e-6, not the
// nearest binary double; that is the spec v1.1.0 "credit arithmetic precision fix".
const dec = (v: string | number) => new Decimal(typeof v === 'number' ? v.toString() : v);

/**
 * Credits (integer) for one call. `spec` pricing (the default): `ceil((promptTokens +
 * completionTokens) * costPerToken * 1000)`, spec Limits 1. `tokens` pricing: `ceil(markup ×
 * Σ kind tokens × kind price per 1K)` (token-pricing.ts). Exact decimal arithmetic, rounded up
 * once. Throws RangeError on negative or fractional tokens.
 */
export function cost(
  usage: TokenUsage,
  model: PricedModel,
  pricing: CreditPricing = SPEC_PRICING,
): number {
  if (pricing.mode === 'tokens')
    return tokensCredits(usage, model, pricing.markup).ceil().toNumber();
  for (const n of [usage.promptTokens, usage.completionTokens]) {
    if (!Number.isInteger(n) || n < 0)
      throw new RangeError(`token count must be a non-negative integer: ${n}`);
  }
  return dec(usage.promptTokens + usage.completionTokens)
    .times(dec(model.costPerToken))
    .times(1000)
    .ceil()
    .toNumber();
}

/**
 * Estimated prompt tokens: `ceil(characters / 4)` over all message contents, counting Unicode
 * code points, spec Limits 2. What `POST /api/credits/estimate`, the daily-limit check and
 * embeddings count; the hold counts promptTextTokens instead (an upper bound for any script).
 */
export function estimateTokens(messages: ChatMessageInput[]): number {
  const chars = messages.reduce((sum, m) => sum + codePoints(m.content), 0);
  return Math.ceil(chars / 4);
}

/**
 * Estimated credits (integer) before sending: `ceil(estimatedTokens * costPerToken * 1000)`,
 * spec Limits 2; in `tokens` pricing, the estimated tokens at the input price (an uncached
 * prompt), times the markup, rounded up.
 */
export function estimate(
  messages: ChatMessageInput[],
  model: PricedModel,
  extraPromptTokens = 0,
  pricing: CreditPricing = SPEC_PRICING,
): number {
  return cost(
    { promptTokens: estimateTokens(messages) + extraPromptTokens, completionTokens: 0 },
    model,
    pricing,
  );
}

/**
 * Worst-case credits reserved before a call: `ceil((promptTextTokens + extraPromptTokens +
 * maxTokens) * costPerToken * 1000)`, so that a reply can never cost more than was held unless
 * the estimate undercounts the prompt. The prompt is counted as the hold counts it
 * (promptTextTokens: ceil(ASCII / 4) plus one token per other code point), not with the spec's
 * ceil(characters / 4), which undercounts Chinese, Japanese and Korean about fourfold. `extraPromptTokens`: prompt tokens the text does not show,
 * e.g. images at their per-provider worst case. `maxTokens` includes any reasoning budget. In
 * `tokens` pricing: the prompt at the highest input-side price and `maxTokens` at the highest
 * output-side price, times the markup, rounded up (tokensWorstCase).
 */
export function holdAmount(
  messages: ChatMessageInput[],
  model: PricedModel,
  maxTokens: number,
  extraPromptTokens = 0,
  pricing: CreditPricing = SPEC_PRICING,
): number {
  const promptTokens = promptTextTokens(messages) + extraPromptTokens;
  if (pricing.mode === 'tokens') {
    tokenKinds({ promptTokens, completionTokens: maxTokens });
    return tokensWorstCase(promptTokens, maxTokens, model, pricing.markup).ceil().toNumber();
  }
  return cost({ promptTokens, completionTokens: maxTokens }, model);
}

/** Spec Limits 3: daily limit in credits by plan; any other plan gets DEFAULT_DAILY_LIMIT. */
export const DAILY_LIMITS: Readonly<Record<string, number>> = { BASIC: 1000, PRO: 10000 };
export const DEFAULT_DAILY_LIMIT = 100;

/** Spec Limits 3: daily limit in credits by plan; any other value gets 100. */
export function dailyLimit(plan: string): number {
  return Object.hasOwn(DAILY_LIMITS, plan) ? DAILY_LIMITS[plan] : DEFAULT_DAILY_LIMIT;
}
