import Decimal from 'decimal.js';
import { PURCHASE_CURRENCIES, type PurchaseCurrency } from '../billing/purchase.entity';

/** A credit pack: `credits` for `amount` major units of `currency` (10 = 10.00 USD). */
export interface CreditPack {
  /** 1–64 letters, digits, `-` or `_`. */
  id: string;
  credits: number;
  /** Major units with at most two decimals. */
  amount: number;
  currency: PurchaseCurrency;
}

/** A pack id: what CREDIT_PACKS and the admin API accept. */
export const PACK_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** The largest pack price, in major units (Stripe's amount limit is far above it). */
export const MAX_PACK_AMOUNT = 100_000;
/** The largest number of credits in one pack. */
export const MAX_PACK_CREDITS = 1_000_000_000;
/** Included credits per paid period, at most. */
export const MAX_PLAN_CREDITS = 1_000_000_000;

/** Why one pack is not valid, or null when it is. */
export function packProblem(p: unknown): string | null {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return 'a pack is an object';
  const { id, credits, amount, currency, ...rest } = p as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length) return `unknown field ${extra[0]}`;
  if (typeof id !== 'string' || !PACK_ID.test(id)) return 'id is 1-64 letters, digits, "-" or "_"';
  if (
    !Number.isInteger(credits) ||
    (credits as number) < 1 ||
    (credits as number) > MAX_PACK_CREDITS
  )
    return `credits of ${id} is an integer from 1 to ${MAX_PACK_CREDITS}`;
  if (
    typeof amount !== 'number' ||
    !Number.isFinite(amount) ||
    !(amount >= 0.5 && amount <= MAX_PACK_AMOUNT) ||
    new Decimal(amount).decimalPlaces() > 2
  )
    return `amount of ${id} is 0.5 to ${MAX_PACK_AMOUNT} with at most two decimals`;
  if (!(PURCHASE_CURRENCIES as readonly unknown[]).includes(currency))
    return `currency of ${id} is one of ${PURCHASE_CURRENCIES.join(', ')}`;
  return null;
}

/**
 * CREDIT_PACKS parsed: a JSON array of `{id, credits, amount, currency}` with distinct ids.
 * Throws Error with the reason (never echoing the whole value) when it is not.
 */
export function parseCreditPacks(raw: string): CreditPack[] {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error('is not JSON');
  }
  if (!Array.isArray(value)) throw new Error('is a JSON array of packs');
  const seen = new Set<string>();
  for (const p of value) {
    const problem = packProblem(p);
    if (problem) throw new Error(problem);
    const id = (p as CreditPack).id;
    if (seen.has(id)) throw new Error(`pack ${id} is listed twice`);
    seen.add(id);
  }
  return value as CreditPack[];
}

/**
 * PLAN_CREDITS parsed: a JSON object from plan (BASIC, PRO) to the credits each paid period
 * includes (a non-negative integer). Throws Error with the reason when it is not.
 */
export function parsePlanCredits(raw: string): Partial<Record<'BASIC' | 'PRO', number>> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error('is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('is a JSON object such as {"BASIC":2000,"PRO":20000}');
  for (const [plan, credits] of Object.entries(value)) {
    if (plan !== 'BASIC' && plan !== 'PRO')
      throw new Error(`${plan} is not a paid plan (BASIC, PRO)`);
    if (
      !Number.isInteger(credits) ||
      (credits as number) < 0 ||
      (credits as number) > MAX_PLAN_CREDITS
    )
      throw new Error(`credits of ${plan} is an integer from 0 to ${MAX_PLAN_CREDITS}`);
  }
  return value as Partial<Record<'BASIC' | 'PRO', number>>;
}
