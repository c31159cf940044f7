import Decimal from 'decimal.js';

/**
 * Currencies whose minor unit is not 1/100 (Stripe's zero- and three-decimal lists). Spec
 * Payments rule 1 sends `amount * 100`, which is only the right minor amount for two-decimal
 * currencies, so these are refused.
 */
const NOT_TWO_DECIMAL = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
  'bhd',
  'jod',
  'kwd',
  'omr',
  'tnd',
]);

/** True for a lower-case ISO 4217 code with two decimal places (e.g. `usd`, `eur`). */
export function isTwoDecimalCurrency(currency: string): boolean {
  return /^[a-z]{3}$/.test(currency) && !NOT_TWO_DECIMAL.has(currency);
}

/**
 * Major units (e.g. 19.99 USD) to the integer minor units the processor receives (1999),
 * computed in decimal so that binary rounding never gives 1998.99 (spec Payments rule 1).
 * Throws RangeError for a non-finite, negative or more-than-two-decimal amount.
 */
export function toMinorUnits(amount: number): number {
  if (!Number.isFinite(amount) || amount < 0) throw new RangeError(`invalid amount: ${amount}`);
  const minor = new Decimal(amount).times(100);
  if (!minor.isInteger()) throw new RangeError(`amount has more than two decimals: ${amount}`);
  return minor.toNumber();
}

/** Minor units back to a display string in major units (1999 → "19.99"). */
export function formatMajor(minor: number): string {
  return new Decimal(minor).dividedBy(100).toFixed(2);
}

/** Most credits `amountUsd` may buy at `creditsPerUsd` (floor of the exact product). */
export function maxCreditsFor(amountUsd: number, creditsPerUsd: number): number {
  return new Decimal(amountUsd).times(creditsPerUsd).floor().toNumber();
}

/**
 * Credits to take back when `refunded` of `paid` minor units are refunded on a purchase of
 * `granted` credits: floor(granted × refunded / paid), never above `granted`.
 */
export function proportionalShare(granted: number, refunded: number, paid: number): number {
  if (paid <= 0 || refunded <= 0) return 0;
  const share = new Decimal(granted).times(refunded).dividedBy(paid).floor().toNumber();
  return Math.min(share, granted);
}
