import { Injectable } from '@nestjs/common';
import type Stripe from 'stripe';
import { BillingErrorCode } from '../billing/billing.errors';
import { CREDIT_PURCHASE } from '../billing/payments.service';
import { StripeClient } from '../billing/stripe.client';
import { AppError } from '../common/errors/app-error';

/** The processor's paid credit purchases created in the window. */
export interface PaidPayments {
  /** Complete, paid Checkout Sessions of credit purchases. */
  sessions: Stripe.Checkout.Session[];
  /** Succeeded payment intents of credit purchases (card, Alipay, WeChat Pay, Checkout's). */
  intents: Stripe.PaymentIntent[];
}

/** A payment's status at the processor: an intent's `status`, a session's `payment_status`. */
export type ProcessorStatus = string | 'missing';

const isPurchase = (o: { metadata?: Stripe.Metadata | null }) =>
  o.metadata?.type === CREDIT_PURCHASE;

/**
 * The reconciliation's reads of the processor, through the Stripe SDK and its auto-pagination
 * (`GET /v1/checkout/sessions` and `GET /v1/payment_intents` filtered by `created[gte]`, page
 * after page with `starting_after`). Throws PAYMENTS_NOT_CONFIGURED (503) without a secret key
 * and the processor's errors as StripeClient maps them.
 */
@Injectable()
export class ProcessorPayments {
  constructor(private readonly stripe: StripeClient) {}

  get configured(): boolean {
    return this.stripe.configured;
  }

  /** The paid credit purchases created at or after `since` (Unix seconds). */
  async paidSince(since: number): Promise<PaidPayments> {
    const paid: PaidPayments = { sessions: [], intents: [] };
    const created = { gte: since };
    await this.stripe.call('checkout.sessions.list', (s) =>
      s.checkout.sessions.list({ created, status: 'complete', limit: 100 }).autoPagingEach((cs) => {
        if (cs.payment_status === 'paid' && isPurchase(cs)) paid.sessions.push(cs);
      }),
    );
    await this.stripe.call('paymentIntents.list', (s) =>
      s.paymentIntents.list({ created, limit: 100 }).autoPagingEach((pi) => {
        if (pi.status === 'succeeded' && isPurchase(pi)) paid.intents.push(pi);
      }),
    );
    return paid;
  }

  /**
   * The status of a granted purchase's payment: its payment intent's `status`, else its
   * Checkout Session's `payment_status`; `missing` when the processor does not know it.
   */
  async statusOf(
    paymentIntentId: string | null,
    sessionId: string | null,
  ): Promise<ProcessorStatus> {
    try {
      if (paymentIntentId) {
        const pi = await this.stripe.call('paymentIntents.retrieve', (s) =>
          s.paymentIntents.retrieve(paymentIntentId),
        );
        return pi.status;
      }
      if (!sessionId) return 'missing';
      const cs = await this.stripe.call('checkout.sessions.retrieve', (s) =>
        s.checkout.sessions.retrieve(sessionId),
      );
      return cs.payment_status;
    } catch (err) {
      if (err instanceof AppError && err.code === BillingErrorCode.PAYMENT_REQUEST_INVALID)
        return 'missing';
      throw err;
    }
  }
}
