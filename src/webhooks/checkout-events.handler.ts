import { Injectable, Logger } from '@nestjs/common';
import { isUUID } from 'class-validator';
import type Stripe from 'stripe';
import type { EntityManager } from 'typeorm';
import { BillingErrorCode } from '../billing/billing.errors';
import { CheckoutPurchasesService } from '../billing/checkout-purchases.service';
import { CREDIT_PURCHASE } from '../billing/payments.service';
import { StripeClient } from '../billing/stripe.client';
import { SubscriptionsService } from '../billing/subscriptions.service';
import { AppError } from '../common/errors/app-error';
import { UsersService } from '../users/users.service';
import { CreditPurchaseHandler } from './credit-purchase.handler';
import type { HandlerOutcome } from './handler-outcome';
import { PurchaseEventsHandler } from './purchase-events.handler';
import { UnappliableEventError } from './unappliable-event.error';

/** Processor reads done before the transaction, so no connection waits on the network. */
export interface CheckoutPrefetch {
  subscription?: Stripe.Subscription;
  /** The session's payment intent with its payment method expanded (which method paid). */
  paymentIntent?: Stripe.PaymentIntent;
}

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === 'string' ? v : v.id;

/** The method that paid `pi`: its expanded payment method's type, else its only allowed type. */
function methodOf(pi: Stripe.PaymentIntent | undefined): string | null {
  if (!pi) return null;
  const pm = pi.payment_method;
  if (pm && typeof pm === 'object' && pm.type) return pm.type;
  return pi.payment_method_types?.length === 1 ? pi.payment_method_types[0] : null;
}

/**
 * Checkout Sessions from processor events: a pack bought through Checkout (paid at once, or
 * later with `async_payment_succeeded`) is granted once, under its payment intent id, the same
 * key as that intent's own `payment_intent.succeeded`: whichever event comes first grants, the
 * others find the entry. A subscription session links the customer and applies the
 * subscription. Every effect runs in the caller's transaction, the one recording the event.
 */
@Injectable()
export class CheckoutEventsHandler {
  private readonly logger = new Logger('CheckoutEvents');

  constructor(
    private readonly stripe: StripeClient,
    private readonly users: UsersService,
    private readonly subscriptions: SubscriptionsService,
    private readonly checkoutPurchases: CheckoutPurchasesService,
    private readonly purchases: CreditPurchaseHandler,
    private readonly purchaseEvents: PurchaseEventsHandler,
  ) {}

  /**
   * Before the transaction: a subscription session's subscription, a credit purchase session's
   * payment intent (to learn the method that paid; skipped without a secret key or for an intent
   * the processor does not know). Throws the processor's transient errors (→ 500, retry).
   */
  async prefetch(session: Stripe.Checkout.Session): Promise<CheckoutPrefetch> {
    const subscription = idOf(session.subscription);
    if (subscription) return { subscription: await this.subscriptions.retrieve(subscription) };
    const pi = idOf(session.payment_intent);
    if (!pi || session.metadata?.type !== CREDIT_PURCHASE || !this.stripe.configured) return {};
    try {
      return {
        paymentIntent: await this.stripe.call('paymentIntents.retrieve', (s) =>
          s.paymentIntents.retrieve(pi, { expand: ['payment_method'] }),
        ),
      };
    } catch (err) {
      if (err instanceof AppError && err.code === BillingErrorCode.PAYMENT_REQUEST_INVALID)
        return {};
      throw err;
    }
  }

  /**
   * `checkout.session.completed` and `checkout.session.async_payment_succeeded`: links the
   * session's customer to the user named by `client_reference_id` (else `metadata.userId`),
   * applies the subscription fetched before the transaction, links a credit purchase to its
   * payment intent, and grants it when `payment_status` is `paid` (an unpaid one, a method that
   * confirms later, is `processing` until `async_payment_succeeded` or `_failed`). A paid credit
   * purchase naming no existing user throws UnappliableEventError (kept for replay); any other
   * session of an unknown user is not ours to apply and is acknowledged.
   */
  async onCompleted(
    session: Stripe.Checkout.Session,
    prefetched: CheckoutPrefetch,
    m: EntityManager,
  ): Promise<HandlerOutcome> {
    const userId = session.client_reference_id ?? session.metadata?.userId ?? null;
    const purchase = session.metadata?.type === CREDIT_PURCHASE;
    const paid = session.payment_status === 'paid';
    if (!userId || !isUUID(userId) || !(await this.users.findById(userId, m))) {
      if (purchase && paid)
        throw new UnappliableEventError(
          `Paid checkout session ${session.id} names no existing user`,
        );
      this.logger.warn({ session: session.id }, 'Checkout session of an unknown user ignored');
      return 'unknown-user';
    }
    const customer = idOf(session.customer);
    if (customer) await this.users.linkPaymentCustomer(userId, customer, m);
    let outcome: HandlerOutcome = 'ignored';
    if (prefetched.subscription) {
      const now = Math.floor(Date.now() / 1000);
      outcome = await this.subscriptions.sync(prefetched.subscription, now, m);
    }
    if (!purchase) return outcome;
    const intent = await this.link(session, prefetched.paymentIntent, m);
    if (!paid) {
      if (intent) await this.purchaseEvents.onIntentState(intent, 'processing', m);
      else await this.checkoutPurchases.transition(session.id, 'processing', m);
      return 'applied';
    }
    if (intent) await this.purchaseEvents.onIntentState(intent, 'succeeded', m);
    else await this.checkoutPurchases.transition(session.id, 'succeeded', m);
    return this.purchases.grant(
      {
        userId,
        teamId: session.metadata?.teamId,
        credits: session.metadata?.credits,
        reference: intent ?? session.id,
        amount: session.amount_total ?? 0,
        currency: session.currency ?? 'usd',
      },
      m,
    );
  }

  /** `checkout.session.async_payment_failed`: the session's purchase is `failed`. */
  async onAsyncFailed(session: Stripe.Checkout.Session, m: EntityManager): Promise<HandlerOutcome> {
    if (session.metadata?.type !== CREDIT_PURCHASE) return 'ignored';
    const intent = await this.link(session, undefined, m);
    if (intent) return this.purchaseEvents.onIntentState(intent, 'failed', m);
    return (await this.checkoutPurchases.transition(session.id, 'failed', m)) ? 'applied' : 'stale';
  }

  /** `checkout.session.expired`: nobody paid; the session's purchase is `canceled`. */
  async onExpired(session: Stripe.Checkout.Session, m: EntityManager): Promise<HandlerOutcome> {
    if (session.metadata?.type !== CREDIT_PURCHASE) return 'ignored';
    return (await this.checkoutPurchases.transition(session.id, 'canceled', m))
      ? 'applied'
      : 'stale';
  }

  /**
   * A `payment_intent.*` event of an intent made by a pack's Checkout Session (its metadata names
   * the purchase) links the purchase to it first, so its state applies even when it arrives
   * before the session's own event.
   */
  async linkIntent(pi: Stripe.PaymentIntent, m: EntityManager): Promise<void> {
    if (pi?.metadata?.type !== CREDIT_PURCHASE || !pi.metadata.purchaseId) return;
    await this.checkoutPurchases.link(
      { purchaseId: pi.metadata.purchaseId },
      pi.id,
      methodOf(pi),
      m,
    );
  }

  /** Links the session's purchase to its payment intent; that intent's id, or null. */
  private async link(
    session: Stripe.Checkout.Session,
    fetched: Stripe.PaymentIntent | undefined,
    m: EntityManager,
  ): Promise<string | null> {
    const pi = idOf(session.payment_intent);
    if (!pi) return null;
    const method = fetched?.id === pi ? methodOf(fetched) : null;
    const ref = { purchaseId: session.metadata?.purchaseId, sessionId: session.id };
    return (await this.checkoutPurchases.link(ref, pi, method, m)) ?? pi;
  }
}
