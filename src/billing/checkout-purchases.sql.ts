import { SqlParams, type SqlStatement } from '../database/sql-params';
import type { PurchaseCurrency } from './purchase.entity';

// The raw statements on `purchases` made through Checkout, beside CheckoutPurchasesService.

/**
 * Records a new pending purchase for Checkout Session `checkoutSessionId` (method `checkout`, no
 * payment intent yet); `amount` in minor units. Does nothing when the session already has its
 * row (a retried request with the same idempotency key gets the same session back).
 */
export function insertCheckoutPurchaseSql(row: {
  id: string;
  userId: string;
  checkoutSessionId: string;
  currency: PurchaseCurrency;
  amount: number;
  credits: number;
  /** A purchase for this team's pool; null: for the buyer's own balance. */
  teamId: string | null;
}): SqlStatement {
  const p = new SqlParams();
  const sql = `INSERT INTO purchases (id, "userId", "checkoutSessionId", method, currency, amount, credits, "teamId")
       VALUES (${p.add(row.id)}, ${p.add(row.userId)}, ${p.add(row.checkoutSessionId)}, 'checkout', ${p.add(row.currency)}, ${p.add(row.amount)}, ${p.add(row.credits)}, ${p.add(row.teamId)}) ON CONFLICT DO NOTHING`;
  return { sql, params: p.values };
}

/**
 * Links the Checkout purchase `purchaseId` (or, when null, the one of session `sessionId`) to
 * the payment intent that paid it, and records the method that paid (`method`, or null when not
 * known yet) while it is still `checkout`. The first intent linked stays: a session has one.
 * Returns the purchase's `paymentIntentId`, no row when there is no such purchase.
 */
export function linkCheckoutIntentSql(l: {
  purchaseId: string | null;
  sessionId: string | null;
  paymentIntentId: string;
  method: string | null;
}): SqlStatement {
  const p = new SqlParams();
  const which =
    l.purchaseId !== null
      ? `id = ${p.add(l.purchaseId)}::uuid`
      : `"checkoutSessionId" = ${p.add(l.sessionId)}`;
  const method = p.add(l.method);
  const sql = `UPDATE purchases SET "paymentIntentId" = COALESCE("paymentIntentId", ${p.add(l.paymentIntentId)}),
         method = CASE WHEN method = 'checkout' AND ${method}::text IS NOT NULL THEN ${method} ELSE method END,
         "updatedAt" = now()
       WHERE ${which} AND "checkoutSessionId" IS NOT NULL RETURNING "paymentIntentId"`;
  return { sql, params: p.values };
}

/**
 * Moves the purchase of Checkout Session $1 to status $2, only from one of the statuses $3
 * (text[]), as TRANSITION_PURCHASE_SQL does by payment intent. Returns its `id`, no row when the
 * move is not allowed.
 */
export const TRANSITION_CHECKOUT_SQL = `UPDATE purchases SET status = $2, "updatedAt" = now()
       WHERE "checkoutSessionId" = $1 AND status = ANY($3) RETURNING id`;

/** `{status, credits}` of the purchase of Checkout Session $1. */
export const CHECKOUT_PURCHASE_VIEW_SQL = `SELECT status, credits FROM purchases WHERE "checkoutSessionId" = $1`;
