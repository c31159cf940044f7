import { SqlParams, type SqlStatement } from '../database/sql-params';
import type { PaymentMethod, PurchaseCurrency } from './purchase.entity';

// The raw statements on `purchases`, beside PurchasesService and CreditPurchasesService.

/**
 * Records a new pending purchase for payment intent `paymentIntentId`; `amount` in minor units.
 * Does nothing when the intent already has its row (a retried request with the same idempotency
 * key gets the same intent), so one intent never has two purchases.
 */
export function insertPurchaseSql(row: {
  id: string;
  userId: string;
  paymentIntentId: string;
  method: PaymentMethod;
  currency: PurchaseCurrency;
  amount: number;
  credits: number;
  /** A purchase for this team's pool; null: for the buyer's own balance. */
  teamId: string | null;
}): SqlStatement {
  const p = new SqlParams();
  const sql = `INSERT INTO purchases (id, "userId", "paymentIntentId", method, currency, amount, credits, "teamId")
       VALUES (${p.add(row.id)}, ${p.add(row.userId)}, ${p.add(row.paymentIntentId)}, ${p.add(row.method)}, ${p.add(row.currency)}, ${p.add(row.amount)}, ${p.add(row.credits)}, ${p.add(row.teamId)}) ON CONFLICT DO NOTHING`;
  return { sql, params: p.values };
}

/** `{id, status}` of the purchase of payment intent $1. */
export const PURCHASE_BY_INTENT_SQL = `SELECT id, status FROM purchases WHERE "paymentIntentId" = $1`;

/**
 * Moves the purchase of payment intent $1 to status $2, only from one of the statuses $3 (text[]):
 * the state machine is kept by the condition, so a late event never undoes a later state.
 * Returns its `id`, no row when the move is not allowed.
 */
export const TRANSITION_PURCHASE_SQL = `UPDATE purchases SET status = $2, "updatedAt" = now()
       WHERE "paymentIntentId" = $1 AND status = ANY($3) RETURNING id`;

/**
 * Records $2 minor units as refunded so far for payment intent $1 (a cumulative amount: it only
 * grows, so an older event read late never lowers it).
 */
export const RECORD_REFUNDED_SQL = `UPDATE purchases SET "refundedAmount" = GREATEST("refundedAmount", $2), "updatedAt" = now()
       WHERE "paymentIntentId" = $1`;

/**
 * Adds asynchronous refund $3 (its id) of $2 minor units to purchase $1: the refunded amount
 * never exceeds the purchase's amount, and the refund id joins `appliedRefunds` (the caller skips
 * ids already there, so one refund counts once).
 */
export const ADD_ASYNC_REFUND_SQL = `UPDATE purchases SET "refundedAmount" = LEAST(amount, "refundedAmount" + $2),
         "appliedRefunds" = "appliedRefunds" || to_jsonb($3::text), "updatedAt" = now()
       WHERE id = $1`;

/**
 * A dispute of the purchase of payment intent $1 was decided for us: `disputed` goes back to
 * `refunded` when fully refunded, else `succeeded`. Any other status is left alone.
 */
export const END_DISPUTE_SQL = `UPDATE purchases SET status = CASE WHEN "refundedAmount" >= amount THEN 'refunded'
         ELSE 'succeeded' END, "updatedAt" = now()
       WHERE "paymentIntentId" = $1 AND status = 'disputed'`;

/**
 * The purchases granted (status succeeded, refunded or disputed: a paid payment's grant was
 * made) whose row changed at or after $1 (timestamptz), for the reconciliation: each one's payment
 * must be paid at the processor.
 */
export const GRANTED_SINCE_SQL = `SELECT id, "userId", "paymentIntentId", "checkoutSessionId", amount, currency, status
       FROM purchases WHERE status IN ('succeeded', 'refunded', 'disputed') AND "updatedAt" >= $1
       ORDER BY "updatedAt", id`;
