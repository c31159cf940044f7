import { Injectable, Logger } from '@nestjs/common';
import { isUUID } from 'class-validator';
import type Stripe from 'stripe';
import type { EntityManager } from 'typeorm';
import { ASYNC_REFUND_METHODS, type PurchaseStatus } from '../billing/purchase.entity';
import { PurchasesService } from '../billing/purchases.service';
import { ReferralRewardsService } from '../referrals/referral-rewards.service';
import { UsersService } from '../users/users.service';
import { CreditPurchaseHandler } from './credit-purchase.handler';
import type { HandlerOutcome } from './handler-outcome';

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === 'string' ? v : v.id;

/**
 * The purchase records' life from processor events, asynchronous refunds (Alipay,
 * WeChat Pay), and the referral reward of a subscription's first paid invoice. Every effect runs
 * in the caller's transaction, the one recording the event.
 */
@Injectable()
export class PurchaseEventsHandler {
  private readonly logger = new Logger('PurchaseEvents');

  constructor(
    private readonly purchases: PurchasesService,
    private readonly creditPurchases: CreditPurchaseHandler,
    private readonly referralRewards: ReferralRewardsService,
    private readonly users: UsersService,
  ) {}

  /**
   * `payment_intent.processing` / `.succeeded` / `.payment_failed` / `.canceled`: moves the
   * intent's purchase to that state when the move is allowed (a late `processing` never undoes
   * `succeeded`). `applied`, `stale` (not allowed) or `ignored` (no purchase record).
   */
  async onIntentState(
    paymentIntentId: unknown,
    status: Exclude<PurchaseStatus, 'pending' | 'refunded' | 'disputed'>,
    m: EntityManager,
  ): Promise<HandlerOutcome> {
    if (typeof paymentIntentId !== 'string') return 'ignored';
    const moved = await this.purchases.transition(paymentIntentId, status, m);
    if (moved) return 'applied';
    return (await this.purchases.lockByIntent(paymentIntentId, m)) ? 'stale' : 'ignored';
  }

  /**
   * `charge.refunded`. A refund of an Alipay or WeChat Pay purchase is only requested at this
   * point (it completes later, with `charge.refund.updated`), so nothing is taken back yet:
   * `deferred`. Otherwise the proportional clawback of CreditPurchaseHandler, the refunded amount
   * on the purchase record, and the reversal of the referral reward it earned (any refund, partial
   * or full, reverses it once).
   */
  async onChargeRefunded(
    charge: Stripe.Charge,
    latePayment: Stripe.PaymentIntent | undefined,
    m: EntityManager,
  ): Promise<HandlerOutcome> {
    const pi = idOf(charge.payment_intent);
    if (!pi) return 'ignored';
    const purchase = await this.purchases.lockByIntent(pi, m);
    if (purchase && ASYNC_REFUND_METHODS.includes(purchase.method)) return 'deferred';
    const outcome = await this.creditPurchases.onChargeRefunded(charge, latePayment, m);
    // The refund came before the payment's own event: the payment was granted just now.
    if (purchase && latePayment?.id === pi && latePayment.status === 'succeeded')
      await this.purchases.transition(pi, 'succeeded', m);
    if (purchase) await this.purchases.recordRefunded(pi, charge.amount_refunded, m);
    if (charge.amount_refunded > 0) await this.referralRewards.onPaymentReversed(pi, 'refunded', m);
    return outcome;
  }

  /**
   * `charge.refund.updated` with status `succeeded` for an Alipay or WeChat Pay purchase: adds
   * the refund to the purchase once (by refund id), takes back the proportional credits of the
   * cumulative refunded amount, and reverses the referral reward (once, on any refund). A pending,
   * failed or canceled refund, or one of a card payment (done at `charge.refunded`), changes
   * nothing.
   */
  async onRefundUpdated(refund: Stripe.Refund, m: EntityManager): Promise<HandlerOutcome> {
    const pi = idOf(refund.payment_intent);
    if (refund.status !== 'succeeded' || !pi || typeof refund.id !== 'string') return 'ignored';
    if (!Number.isInteger(refund.amount) || refund.amount <= 0) return 'ignored';
    const purchase = await this.purchases.lockByIntent(pi, m);
    if (!purchase || !ASYNC_REFUND_METHODS.includes(purchase.method)) return 'ignored';
    const after = await this.purchases.addAsyncRefund(purchase, refund.id, refund.amount, m);
    if (!after) return 'duplicate';
    const outcome = await this.creditPurchases.takeBackShare(
      pi,
      after.refundedAmount,
      after.amount,
      after.currency,
      m,
    );
    await this.referralRewards.onPaymentReversed(pi, 'refunded', m);
    return outcome;
  }

  /**
   * `invoice.paid` of a subscription's first invoice (`billing_reason: subscription_create`)
   * with something paid: the subscriber's first payment, which rewards their referrer once when
   * it is at least the referral minimum. The subscriber is the user with the invoice's customer,
   * else the subscription metadata's `userId`; the payment is the invoice's payment intent (its
   * refund or dispute reverses the reward).
   */
  async onInvoicePaid(invoice: Stripe.Invoice, m: EntityManager): Promise<HandlerOutcome> {
    if (invoice?.billing_reason !== 'subscription_create' || !(invoice.amount_paid > 0))
      return 'ignored';
    const customer = idOf(invoice.customer);
    const byCustomer = customer ? await this.users.findByPaymentCustomerId(customer, m) : null;
    const metadataUser = invoice.subscription_details?.metadata?.userId;
    const userId =
      byCustomer?.id ??
      (metadataUser && isUUID(metadataUser) && (await this.users.findById(metadataUser, m))
        ? metadataUser
        : null);
    if (!userId) {
      this.logger.warn({ invoice: invoice.id }, 'Paid invoice of an unknown user ignored');
      return 'unknown-user';
    }
    const payment = {
      id: idOf(invoice.payment_intent) ?? invoice.id,
      amount: invoice.amount_paid,
      currency: invoice.currency,
    };
    return (await this.referralRewards.onPaymentSucceeded(userId, payment, m))
      ? 'granted'
      : 'ignored';
  }
}
