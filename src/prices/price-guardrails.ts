import Decimal from 'decimal.js';
import { fullPrices, type KindPrices, PRICE_KINDS } from './price-kinds';

/** What the sync does with a model's price from the source. */
export type SyncDecision =
  | { action: 'same' }
  | { action: 'apply'; increasePercent: string }
  | { action: 'hold'; increasePercent: string };

/**
 * The guardrail of one model's new price: `same` when no kind changes (fallbacks applied);
 * `apply` when no kind rises by more than `maxIncreasePercent` (a decrease applies at once);
 * `hold` (an admin decides) when one does, or when a kind priced 0 becomes dearer. A model
 * without a price yet takes its first at once. `increasePercent` is the largest rise of any
 * kind, in percent, 0 for a decrease.
 */
export function decide(
  current: KindPrices | undefined,
  next: KindPrices,
  maxIncreasePercent: number,
): SyncDecision {
  if (!current) return { action: 'apply', increasePercent: '0' };
  const before = fullPrices(current);
  const after = fullPrices(next);
  if (PRICE_KINDS.every((k) => new Decimal(before[k]).eq(after[k]))) return { action: 'same' };
  let most = new Decimal(0);
  for (const k of PRICE_KINDS) {
    const was = new Decimal(before[k]);
    const now = new Decimal(after[k]);
    if (now.lte(was)) continue;
    if (was.isZero()) return { action: 'hold', increasePercent: 'Infinity' };
    most = Decimal.max(most, now.minus(was).div(was).times(100));
  }
  const increasePercent = most.toDecimalPlaces(2).toString();
  return most.gt(maxIncreasePercent)
    ? { action: 'hold', increasePercent }
    : { action: 'apply', increasePercent };
}
