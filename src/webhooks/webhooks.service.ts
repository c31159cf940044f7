import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type Stripe from 'stripe';
import { DataSource, type EntityManager, QueryFailedError } from 'typeorm';
import { StripeClient } from '../billing/stripe.client';
import { SubscriptionsService } from '../billing/subscriptions.service';
import { AppError } from '../common/errors/app-error';
import { WebhooksErrorCode } from './webhooks.errors';
import { returning } from '../credits/sql';
import { MetricsService } from '../metrics/metrics.service';
import { span } from '../telemetry/spans';
import { PlanGrantsService } from '../wallet/plan-grants.service';
import { CheckoutEventsHandler, type CheckoutPrefetch } from './checkout-events.handler';
import { CreditPurchaseHandler } from './credit-purchase.handler';
import type { HandlerOutcome } from './handler-outcome';
import { DisputesHandler } from './disputes.handler';
import { PurchaseEventsHandler } from './purchase-events.handler';
import { WebhookFailuresService } from './webhook-failures.service';
import { EVENT_SEEN_SQL, RECORD_EVENT_SQL } from './webhooks.sql';

/** Event types with an effect; any other verified event is acknowledged and not recorded. */
export const HANDLED_EVENTS = [
  'payment_intent.succeeded',
  'payment_intent.processing',
  'payment_intent.payment_failed',
  'payment_intent.canceled',
  'charge.refund.updated',
  'invoice.paid',
  'invoice.payment_failed',
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'charge.refunded',
  'charge.dispute.created',
  'charge.dispute.closed',
] as const;

/** Processor reads done before the transaction, so no connection waits on the network. */
interface Prefetched {
  checkout?: CheckoutPrefetch;
  paymentIntent?: Stripe.PaymentIntent;
}

/** PostgreSQL codes of a transaction that lost a race and can simply run again. */
const RETRYABLE = new Set(['23505', '40001', '40P01']);
const isRetryable = (err: unknown) =>
  err instanceof QueryFailedError && RETRYABLE.has((err as { code?: string }).code ?? '');

/**
 * Spec "Events": verifies a delivery, then applies its effect and records the event id in ONE
 * transaction. A duplicate (sequential or concurrent) finds the id and does nothing; a failed
 * attempt rolls back both, answers 500, and the processor's retry runs it again.
 */
/** The shape of a processor event id (`evt_1PqExample`). */
const EVENT_ID = /^[\w-]{1,255}$/;

@Injectable()
export class WebhooksService {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly stripe: StripeClient,
    private readonly subscriptions: SubscriptionsService,
    private readonly purchases: CreditPurchaseHandler,
    private readonly checkout: CheckoutEventsHandler,
    private readonly planGrants: PlanGrantsService,
    private readonly purchaseEvents: PurchaseEventsHandler,
    private readonly disputes: DisputesHandler,
    private readonly failures: WebhookFailuresService,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * Handles one delivery: `rawBody` exactly as received and the signature header. Answers
   * `{received: true}` for a processed, duplicate or unhandled event type (spec Events 2).
   * Throws WEBHOOK_SIGNATURE_INVALID (400, nothing written), PAYMENTS_NOT_CONFIGURED (503)
   * without STRIPE_WEBHOOK_SECRET, WEBHOOK_HANDLER_FAILED (500) when the effect fails.
   */
  async receive(
    rawBody: Buffer | undefined,
    signature: string | undefined,
  ): Promise<{ received: true }> {
    const event = this.stripe.constructEvent(rawBody, signature);
    if (!(HANDLED_EVENTS as readonly string[]).includes(event.type)) return { received: true };
    // constructEvent verified the signature of exactly these bytes, so rawBody is defined.
    await this.handle(event, rawBody!.toString('utf8'));
    return { received: true };
  }

  /**
   * Runs a stored failed event again through the same idempotent path as a
   * delivery. `processed` when it applied now; `duplicate` when it had been processed since
   * (a processor retry, an earlier replay): a no-op. Throws NOT_FOUND (404) for an id that is
   * neither stored nor processed, WEBHOOK_HANDLER_FAILED (500) when it fails again (the row
   * stays, with one more attempt).
   */
  async replay(eventId: string): Promise<{ eventId: string; outcome: 'processed' | 'duplicate' }> {
    // Processor event ids are word characters (`evt_…`); anything else (a NUL byte, which
    // PostgreSQL text cannot hold) names no stored event.
    if (!EVENT_ID.test(eventId)) throw this.failures.notFound();
    const failed = await this.failures.find(eventId);
    if (!failed) {
      if (await this.failures.processed(eventId)) return { eventId, outcome: 'duplicate' };
      throw this.failures.notFound();
    }
    const event = JSON.parse(failed.payload) as Stripe.Event;
    return { eventId, outcome: await this.handle(event, failed.payload) };
  }

  /**
   * Processes a verified event. A failure is stored in the dead-letter table with its raw
   * payload, counted, logged at error level, and thrown as WEBHOOK_HANDLER_FAILED (500, so the
   * processor retries); a success removes any stored failure of the event.
   */
  private async handle(event: Stripe.Event, payload: string): Promise<'processed' | 'duplicate'> {
    let outcome: HandlerOutcome | 'already-processed';
    try {
      outcome = await span('webhook.handle', () => this.process(event), {
        'webhook.event_id': event.id,
        'webhook.event_type': event.type,
      });
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      this.metrics.webhookEvents.inc({ type: event.type, outcome: 'failed' });
      this.logger.error(
        { event: event.id, type: event.type, err: { name: e.name, message: e.message } },
        'Webhook handler failed; stored for replay, the processor will retry',
      );
      // When the database itself is down this fails too; the processor's retry still comes.
      await this.failures
        .record(event.id, event.type, payload, e)
        .catch((recordErr: Error) =>
          this.logger.error({ event: event.id, err: recordErr.message }, 'Dead letter not stored'),
        );
      throw new AppError(WebhooksErrorCode.WEBHOOK_HANDLER_FAILED, 'Webhook handler failed');
    }
    const result = outcome === 'already-processed' ? 'duplicate' : 'processed';
    this.metrics.webhookEvents.inc({ type: event.type, outcome: result });
    this.logger.log({ event: event.id, type: event.type, outcome }, 'Webhook event handled');
    await this.failures.resolve(event.id);
    return result;
  }

  private async process(event: Stripe.Event): Promise<HandlerOutcome | 'already-processed'> {
    const seen = await this.dataSource.query(EVENT_SEEN_SQL, [event.id]);
    if (seen.length) return 'already-processed';
    const prefetched = await this.prefetch(event);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction(async (m) => {
          // Blocks while a concurrent delivery of the same event is in flight; DO NOTHING once
          // it commits, or proceeds if it rolled back.
          const fresh = await returning<{ id: string }>(m, RECORD_EVENT_SQL, [
            event.id,
            event.type,
            event.created,
          ]);
          if (!fresh.length) return 'already-processed';
          return this.apply(event, prefetched, m);
        });
      } catch (err) {
        // A race with another event for the same payment: the rerun sees its committed effect.
        if (attempt < 2 && isRetryable(err)) continue;
        throw err;
      }
    }
  }

  private async prefetch(event: Stripe.Event): Promise<Prefetched> {
    if (
      event.type === 'checkout.session.completed' ||
      event.type === 'checkout.session.async_payment_succeeded'
    )
      return { checkout: await this.checkout.prefetch(event.data.object) };
    if (event.type === 'charge.refunded')
      return { paymentIntent: await this.purchases.prepareRefund(event.data.object) };
    return {};
  }

  private async apply(
    event: Stripe.Event,
    prefetched: Prefetched,
    m: EntityManager,
  ): Promise<HandlerOutcome> {
    if (event.type.startsWith('payment_intent.'))
      await this.checkout.linkIntent(event.data.object as Stripe.PaymentIntent, m);
    switch (event.type) {
      case 'payment_intent.succeeded':
        await this.purchaseEvents.onIntentState(event.data.object.id, 'succeeded', m);
        return this.purchases.onPaymentSucceeded(event.data.object, m);
      case 'payment_intent.processing':
        return this.purchaseEvents.onIntentState(event.data.object.id, 'processing', m);
      case 'payment_intent.payment_failed':
        return this.purchaseEvents.onIntentState(event.data.object.id, 'failed', m);
      case 'payment_intent.canceled':
        return this.purchaseEvents.onIntentState(event.data.object.id, 'canceled', m);
      case 'charge.refund.updated':
        return this.purchaseEvents.onRefundUpdated(event.data.object, m);
      case 'invoice.paid': {
        const referral = await this.purchaseEvents.onInvoicePaid(event.data.object, m);
        const plan = await this.planGrants.onInvoicePaid(event.data.object, m);
        return plan === 'ignored' ? referral : plan;
      }
      case 'invoice.payment_failed':
        return this.planGrants.onInvoicePaymentFailed(event.data.object, m);
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
        return this.subscriptions.sync(event.data.object, event.created, m);
      case 'customer.subscription.deleted':
        return this.subscriptions.sync(event.data.object, event.created, m, true);
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
        return this.checkout.onCompleted(event.data.object, prefetched.checkout ?? {}, m);
      case 'checkout.session.async_payment_failed':
        return this.checkout.onAsyncFailed(event.data.object, m);
      case 'checkout.session.expired':
        return this.checkout.onExpired(event.data.object, m);
      case 'charge.refunded':
        return this.purchaseEvents.onChargeRefunded(event.data.object, prefetched.paymentIntent, m);
      case 'charge.dispute.created':
        return this.disputes.onCreated(event.data.object, m);
      case 'charge.dispute.closed':
        return this.disputes.onClosed(event.data.object, m);
      default:
        return 'ignored';
    }
  }
}
