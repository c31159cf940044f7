import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';

/** Fixtures shaped like Stripe's documented objects (API version 2024-06-20). */

export const rid = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** An `event` envelope around `object` (`created` in Unix seconds; default now). */
export function stripeEvent(
  type: string,
  object: Record<string, unknown>,
  opts: { id?: string; created?: number } = {},
): Record<string, any> {
  return {
    id: opts.id ?? rid('evt'),
    object: 'event',
    api_version: '2024-06-20',
    created: opts.created ?? nowSeconds(),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: rid('req'), idempotency_key: null },
    type,
  };
}

/** The `Stripe-Signature` header for `payload`, signed at `timestamp` (Unix s, default now). */
export function signatureFor(payload: string, secret: string, timestamp?: number): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

/** A payment intent; `amount` in minor units. */
export function paymentIntentObject(p: {
  id?: string;
  amount: number;
  currency?: string;
  status?: string;
  metadata?: Record<string, string>;
  customer?: string | null;
}): Record<string, any> {
  const id = p.id ?? rid('pi');
  const succeeded = (p.status ?? 'succeeded') === 'succeeded';
  return {
    id,
    object: 'payment_intent',
    amount: p.amount,
    amount_capturable: 0,
    amount_received: succeeded ? p.amount : 0,
    automatic_payment_methods: { enabled: true },
    capture_method: 'automatic',
    client_secret: `${id}_secret_${randomBytes(8).toString('hex')}`,
    confirmation_method: 'automatic',
    created: nowSeconds(),
    currency: p.currency ?? 'usd',
    customer: p.customer ?? null,
    description: null,
    last_payment_error: null,
    latest_charge: succeeded ? rid('ch') : null,
    livemode: false,
    metadata: p.metadata ?? {},
    next_action: null,
    payment_method: succeeded ? rid('pm') : null,
    payment_method_types: ['card'],
    status: p.status ?? 'succeeded',
  };
}

/** A subscription with one item of `priceId`. */
export function subscriptionObject(p: {
  id?: string;
  customer: string;
  priceId: string;
  status: string;
  metadata?: Record<string, string>;
  periodEnd?: number;
}): Record<string, any> {
  const start = nowSeconds();
  const id = p.id ?? rid('sub');
  return {
    id,
    object: 'subscription',
    cancel_at_period_end: false,
    canceled_at: p.status === 'canceled' ? start : null,
    created: start,
    currency: 'usd',
    current_period_end: p.periodEnd ?? start + 30 * 86400,
    current_period_start: start,
    customer: p.customer,
    ended_at: p.status === 'canceled' ? start : null,
    items: {
      object: 'list',
      data: [
        {
          id: rid('si'),
          object: 'subscription_item',
          created: start,
          metadata: {},
          price: {
            id: p.priceId,
            object: 'price',
            active: true,
            currency: 'usd',
            product: rid('prod'),
            recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' },
            type: 'recurring',
            unit_amount: 999,
          },
          quantity: 1,
          subscription: id,
        },
      ],
      has_more: false,
      url: `/v1/subscription_items?subscription=${id}`,
    },
    latest_invoice: rid('in'),
    livemode: false,
    metadata: p.metadata ?? {},
    payment_settings: { save_default_payment_method: 'on_subscription' },
    status: p.status,
  };
}

/** A paid invoice of `customer`; amounts in minor units. */
export function invoiceObject(p: { customer: string } & Record<string, any>): Record<string, any> {
  const id = p.id ?? rid('in');
  return {
    id,
    object: 'invoice',
    number: null,
    amount_due: 999,
    amount_paid: 999,
    currency: 'usd',
    created: nowSeconds(),
    status: 'paid',
    hosted_invoice_url: `https://invoice.stripe.test/${id}`,
    customer_email: 'secret@example.com',
    payment_intent: null,
    ...p,
  };
}

/** A completed Checkout Session; `amount_total` in minor units. */
export function checkoutSessionObject(p: {
  mode: 'payment' | 'subscription';
  clientReferenceId?: string | null;
  customer?: string | null;
  paymentIntent?: string | null;
  subscription?: string | null;
  amountTotal?: number;
  metadata?: Record<string, string>;
}): Record<string, any> {
  return {
    id: rid('cs_test'),
    object: 'checkout.session',
    amount_subtotal: p.amountTotal ?? 0,
    amount_total: p.amountTotal ?? 0,
    client_reference_id: p.clientReferenceId ?? null,
    created: nowSeconds(),
    currency: 'usd',
    customer: p.customer ?? null,
    livemode: false,
    metadata: p.metadata ?? {},
    mode: p.mode,
    payment_intent: p.paymentIntent ?? null,
    payment_status: 'paid',
    status: 'complete',
    subscription: p.subscription ?? null,
    success_url: 'http://localhost:3000/payment/success',
  };
}

/** A charge of `paymentIntent`; amounts in minor units. */
export function chargeObject(p: {
  paymentIntent: string | null;
  amount: number;
  amountRefunded: number;
}): Record<string, any> {
  return {
    id: rid('ch'),
    object: 'charge',
    amount: p.amount,
    amount_captured: p.amount,
    amount_refunded: p.amountRefunded,
    captured: true,
    created: nowSeconds(),
    currency: 'usd',
    livemode: false,
    metadata: {},
    paid: true,
    payment_intent: p.paymentIntent,
    refunded: p.amountRefunded >= p.amount,
    status: 'succeeded',
  };
}

/**
 * A dispute (chargeback) of `paymentIntent`'s charge; `amount` in minor units. `status` is
 * `needs_response` when it opens (`charge.dispute.created`), then `won`, `lost` or, for an
 * inquiry, `warning_closed` (`charge.dispute.closed`).
 */
export function disputeObject(p: {
  id?: string;
  paymentIntent: string | null;
  charge?: string;
  amount: number;
  currency?: string;
  status?: string;
  reason?: string;
}): Record<string, any> {
  const created = nowSeconds();
  return {
    id: p.id ?? rid('dp'),
    object: 'dispute',
    amount: p.amount,
    balance_transactions: [],
    charge: p.charge ?? rid('ch'),
    created,
    currency: p.currency ?? 'usd',
    evidence: { customer_email_address: null, product_description: null },
    evidence_details: {
      due_by: created + 7 * 86400,
      has_evidence: false,
      past_due: false,
      submission_count: 0,
    },
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: p.paymentIntent,
    reason: p.reason ?? 'fraudulent',
    status: p.status ?? 'needs_response',
  };
}

export interface DeliveryOptions {
  secret: string;
  /** Default `/api/webhooks/payment`. */
  path?: string;
  /** Header carrying the signature; default `Stripe-Signature`. */
  header?: string;
  /** Signing time, Unix seconds (default now). */
  timestamp?: number;
  /** Body actually sent, when it should differ from the signed one. */
  sentBody?: string;
}

/**
 * POSTs `event` as Stripe does (raw JSON, signed header) through a supertest agent.
 * Returns the supertest Test, so callers can `.expect(...)`.
 */
export function deliver(
  http: { post(path: string): any },
  event: Record<string, unknown>,
  opts: DeliveryOptions,
) {
  const payload = JSON.stringify(event);
  return http
    .post(opts.path ?? '/api/webhooks/payment')
    .set('Content-Type', 'application/json; charset=utf-8')
    .set(opts.header ?? 'Stripe-Signature', signatureFor(payload, opts.secret, opts.timestamp))
    .send(opts.sentBody ?? payload);
}
