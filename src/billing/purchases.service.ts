import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { billingConfig } from './billing.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource, type EntityManager } from 'typeorm';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { decodeCursor, pageSize, toPage } from '../common/pagination/pagination';
import { returning } from '../credits/sql';
import { mapPurchase, type PurchasePageDto, type PurchaseViewDto } from './dto/purchase.dto';
import { Purchase, type PurchaseStatus } from './purchase.entity';
import {
  ADD_ASYNC_REFUND_SQL,
  END_DISPUTE_SQL,
  GRANTED_SINCE_SQL,
  RECORD_REFUNDED_SQL,
  TRANSITION_PURCHASE_SQL,
} from './purchases.sql';
import { StripeClient } from './stripe.client';

/**
 * The states a purchase may come from to reach each state. Webhooks can arrive in any order,
 * so a late `processing` never undoes `succeeded`, and only a succeeded payment is refunded.
 * A failed attempt can still be retried by the customer (→ processing or succeeded). A dispute
 * may arrive before the payment's own event; nothing but a won dispute (`endDispute`) leaves
 * `disputed`.
 */
export const PURCHASE_FROM: Record<Exclude<PurchaseStatus, 'pending'>, PurchaseStatus[]> = {
  processing: ['pending', 'failed'],
  succeeded: ['pending', 'processing', 'failed'],
  failed: ['pending', 'processing'],
  canceled: ['pending', 'processing', 'failed'],
  refunded: ['succeeded'],
  disputed: ['pending', 'processing', 'failed', 'succeeded', 'refunded'],
};

/** A granted purchase as the reconciliation reads it; `amount` in minor units of `currency`. */
export type GrantedPurchase = Pick<
  Purchase,
  'id' | 'userId' | 'paymentIntentId' | 'checkoutSessionId' | 'amount' | 'currency' | 'status'
>;

/** The `purchases` records: read by their owner and the success page. */
@Injectable()
export class PurchasesService {
  private readonly logger = new Logger('Purchases');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly stripe: StripeClient,
    @Inject(billingConfig.KEY) private readonly billing: ConfigType<typeof billingConfig>,
  ) {}

  /** The session user's purchases, newest first, keyset-paginated. */
  async list(user: SessionUser, limit?: number, cursor?: string): Promise<PurchasePageDto> {
    const size = pageSize(limit);
    const qb = this.dataSource
      .getRepository(Purchase)
      .createQueryBuilder('p')
      .where('p.userId = :userId', { userId: user.id })
      .orderBy('p.createdAt', 'DESC')
      .addOrderBy('p.id', 'DESC')
      .take(size + 1);
    if (cursor) qb.andWhere('(p.createdAt, p.id) < (:at, :id)', decodeCursor(cursor));
    const page = toPage(await qb.getMany(), size, (p) => p.createdAt);
    return { data: page.data.map((p) => mapPurchase(p)), nextCursor: page.nextCursor };
  }

  /** One of the session user's purchases. Throws NOT_FOUND (404), also for another's. */
  async get(user: SessionUser, id: string): Promise<PurchaseViewDto> {
    const purchase = await this.find(id);
    if (!purchase || purchase.userId !== user.id)
      throw new AppError(CommonErrorCode.NOT_FOUND, 'Purchase not found');
    return mapPurchase(purchase, await this.displayedStatus(purchase));
  }

  /**
   * State and credits only, for the session-less success page; null for an unknown or
   * malformed id (the id is a random UUID, known only to its buyer).
   */
  async publicView(id: unknown): Promise<{ status: PurchaseStatus; credits: number } | null> {
    const purchase = typeof id === 'string' ? await this.find(id) : null;
    if (!purchase) return null;
    return { status: await this.displayedStatus(purchase), credits: purchase.credits };
  }

  /**
   * Moves the purchase of `paymentIntentId` to `status` when allowed from its current state
   * (FROM); in the caller's (webhook) transaction. Returns the purchase after the change, or
   * null when there is no such purchase or the move is not allowed.
   */
  async transition(
    paymentIntentId: string,
    status: Exclude<PurchaseStatus, 'pending'>,
    m: EntityManager,
  ): Promise<Purchase | null> {
    const rows = await returning<{ id: string }>(m, TRANSITION_PURCHASE_SQL, [
      paymentIntentId,
      status,
      PURCHASE_FROM[status],
    ]);
    return rows.length ? this.byIntent(paymentIntentId, m) : null;
  }

  /** The purchase of a payment intent, locked for the caller's transaction; or null. */
  async lockByIntent(paymentIntentId: string, m: EntityManager): Promise<Purchase | null> {
    return m
      .getRepository(Purchase)
      .createQueryBuilder('p')
      .setLock('pessimistic_write')
      .where('p.paymentIntentId = :paymentIntentId', { paymentIntentId })
      .getOne();
  }

  /**
   * Records `refunded` minor units as refunded so far (the cumulative amount of a card charge),
   * and the status `refunded` once it covers the amount. Returns the purchase, or null.
   */
  async recordRefunded(
    paymentIntentId: string,
    refunded: number,
    m: EntityManager,
  ): Promise<Purchase | null> {
    await m.query(RECORD_REFUNDED_SQL, [paymentIntentId, refunded]);
    const purchase = await this.byIntent(paymentIntentId, m);
    if (purchase && purchase.refundedAmount >= purchase.amount)
      await this.transition(paymentIntentId, 'refunded', m);
    return purchase ? this.byIntent(paymentIntentId, m) : null;
  }

  /**
   * Adds one succeeded asynchronous refund (`refundId`, `amount` minor units) to the purchase
   * once: a second delivery of the same refund changes nothing and returns null. Returns the
   * purchase afterwards (status `refunded` once fully refunded).
   */
  async addAsyncRefund(
    purchase: Purchase,
    refundId: string,
    amount: number,
    m: EntityManager,
  ): Promise<Purchase | null> {
    const pi = purchase.paymentIntentId;
    if (!pi || purchase.appliedRefunds.includes(refundId)) return null;
    await m.query(ADD_ASYNC_REFUND_SQL, [purchase.id, amount, refundId]);
    const after = (await this.byIntent(pi, m))!;
    if (after.refundedAmount >= after.amount) await this.transition(pi, 'refunded', m);
    return this.byIntent(pi, m);
  }

  /**
   * A dispute of the purchase of `paymentIntentId` was decided for us (won, or an inquiry
   * closed): `disputed` goes back to `refunded` when it is fully refunded, else `succeeded`.
   * Any other state is left alone.
   */
  async endDispute(paymentIntentId: string, m: EntityManager): Promise<void> {
    await m.query(END_DISPUTE_SQL, [paymentIntentId]);
  }

  /**
   * The purchases granted (succeeded, refunded or disputed) whose record changed at or after
   * `since`, oldest change first: what the reconciliation checks against the processor.
   */
  grantedSince(since: Date): Promise<GrantedPurchase[]> {
    return this.dataSource.query(GRANTED_SINCE_SQL, [since]);
  }

  private byIntent(paymentIntentId: string, m: EntityManager): Promise<Purchase | null> {
    return m.findOneBy(Purchase, { paymentIntentId });
  }

  private find(id: string): Promise<Purchase | null> {
    if (!isUUID(id)) return Promise.resolve(null);
    return this.dataSource.getRepository(Purchase).findOneBy({ id });
  }

  /**
   * The stored status, except that a purchase still pending (or processing) after
   * PURCHASE_RECHECK_SECONDS is shown as `canceled` when Stripe says its intent is canceled
   * (the QR code or redirect expired and no webhook will come). Nothing is written: the record
   * changes only with webhooks. A failed lookup keeps the stored status.
   */
  private async displayedStatus(p: Purchase): Promise<PurchaseStatus> {
    if (p.status !== 'pending' && p.status !== 'processing') return p.status;
    const { purchaseRecheckSeconds } = this.billing;
    if (Date.now() - p.createdAt.getTime() < purchaseRecheckSeconds * 1000) return p.status;
    const pi = p.paymentIntentId;
    // A Checkout Session not paid yet ends with `checkout.session.expired`, a webhook.
    if (!this.stripe.configured || !pi) return p.status;
    try {
      const intent = await this.stripe.call('paymentIntents.retrieve', (s) =>
        s.paymentIntents.retrieve(pi),
      );
      return intent.status === 'canceled' ? 'canceled' : p.status;
    } catch (err) {
      this.logger.warn({ purchase: p.id, err: (err as Error).message }, 'Intent recheck failed');
      return p.status;
    }
  }
}
