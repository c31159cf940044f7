import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource, type EntityManager } from 'typeorm';
import { returning } from '../credits/sql';
import {
  CHECKOUT_PURCHASE_VIEW_SQL,
  insertCheckoutPurchaseSql,
  linkCheckoutIntentSql,
  TRANSITION_CHECKOUT_SQL,
} from './checkout-purchases.sql';
import { PAYMENT_METHODS, type PurchaseCurrency, type PurchaseStatus } from './purchase.entity';
import { PURCHASE_FROM } from './purchases.service';

/** A Checkout Session's id as Stripe writes it (`cs_test_…`, `cs_live_…`). */
const SESSION_ID = /^cs_[\w]{1,250}$/;

/**
 * The `purchases` made through Stripe Checkout: recorded with their session when it is created,
 * linked to the payment intent that paid them once the webhooks name it. From then on the
 * payment intent's events (refunds, disputes) find them as any other purchase.
 */
@Injectable()
export class CheckoutPurchasesService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Records the pending purchase of a new Checkout Session (once per session). */
  async record(row: {
    id: string;
    userId: string;
    checkoutSessionId: string;
    currency: PurchaseCurrency;
    amount: number;
    credits: number;
    teamId: string | null;
  }): Promise<void> {
    const insert = insertCheckoutPurchaseSql(row);
    await this.dataSource.query(insert.sql, insert.params);
  }

  /**
   * Links the Checkout purchase named by `purchaseId` (metadata of the session and its payment
   * intent) or else by `sessionId` to payment intent `paymentIntentId`, recording `method` when
   * it is one of PAYMENT_METHODS. Returns the purchase's payment intent id (the first one linked),
   * or null when no Checkout purchase matches. In the caller's (webhook) transaction.
   */
  async link(
    ref: { purchaseId?: string | null; sessionId?: string | null },
    paymentIntentId: string,
    method: string | null,
    m: EntityManager,
  ): Promise<string | null> {
    const purchaseId = ref.purchaseId && isUUID(ref.purchaseId) ? ref.purchaseId : null;
    if (!purchaseId && !ref.sessionId) return null;
    const known = (PAYMENT_METHODS as readonly string[]).includes(method ?? '') ? method : null;
    const update = linkCheckoutIntentSql({
      purchaseId,
      sessionId: ref.sessionId ?? null,
      paymentIntentId,
      method: known,
    });
    const rows = await returning<{ paymentIntentId: string }>(m, update.sql, update.params);
    return rows[0]?.paymentIntentId ?? null;
  }

  /**
   * Moves the purchase of Checkout Session `sessionId` to `status` when allowed from its state
   * (the same state machine as by payment intent). True when it moved.
   */
  async transition(
    sessionId: string,
    status: Exclude<PurchaseStatus, 'pending'>,
    m: EntityManager,
  ): Promise<boolean> {
    const rows = await returning<{ id: string }>(m, TRANSITION_CHECKOUT_SQL, [
      sessionId,
      status,
      PURCHASE_FROM[status],
    ]);
    return rows.length > 0;
  }

  /**
   * State and credits of the purchase of Checkout Session `sessionId`, for the session-less
   * success page (`?session_id=`); null for an unknown or malformed id, or a session that bought
   * no credits (a plan).
   */
  async publicView(
    sessionId: unknown,
  ): Promise<{ status: PurchaseStatus; credits: number } | null> {
    if (typeof sessionId !== 'string' || !SESSION_ID.test(sessionId)) return null;
    const [row] = await this.dataSource.query(CHECKOUT_PURCHASE_VIEW_SQL, [sessionId]);
    return row ?? null;
  }
}
