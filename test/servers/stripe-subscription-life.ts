import { rid, subscriptionObject } from './stripe-events';
import type { CheckoutHost, CheckoutOutcome } from './stripe-checkout';

// A subscription's life after its Checkout Session, on the local Stripe server: the first paid
// invoice, renewals paid or failed, price changes and the end, each with the events Stripe sends.

const nowSeconds = () => Math.floor(Date.now() / 1000);
const DAY = 86400;

/** The active subscription a paid subscription session makes, and its paid first invoice. */
export function startSubscription(
  host: CheckoutHost,
  session: Record<string, any>,
): { subscription: Record<string, any>; invoice: Record<string, any> } {
  const sub = subscriptionObject({
    customer: session.customer,
    priceId: session._price,
    status: 'active',
    metadata: session._subscriptionData.metadata ?? {},
  });
  host.subscriptions.set(sub.id, sub);
  const invoice = periodInvoice(host, sub, 'subscription_create', true);
  sub.latest_invoice = invoice.id;
  return { subscription: sub, invoice };
}

/** A new period of subscription `id` is paid: its invoice (`subscription_cycle`) and events. */
export function renewSubscription(
  host: CheckoutHost,
  id: string,
): CheckoutOutcome & { invoice: Record<string, any> } {
  const sub = subscriptionOf(host, id);
  sub.current_period_start = sub.current_period_end;
  sub.current_period_end += 30 * DAY;
  const invoice = periodInvoice(host, sub, 'subscription_cycle', true);
  return { session: {}, subscription: sub, invoice, events: [['invoice.paid', invoice]] };
}

/** A renewal of subscription `id` fails: the invoice stays open and the subscription is past due. */
export function failRenewal(
  host: CheckoutHost,
  id: string,
): CheckoutOutcome & { invoice: Record<string, any> } {
  const sub = subscriptionOf(host, id);
  sub.status = 'past_due';
  const invoice = periodInvoice(host, sub, 'subscription_cycle', false);
  return {
    session: {},
    subscription: sub,
    invoice,
    events: [
      ['invoice.payment_failed', invoice],
      ['customer.subscription.updated', { ...sub }],
    ],
  };
}

/**
 * Subscription `id` moves to `price` (the portal's upgrade at once, or the downgrade that a
 * schedule applies at the period's end): `customer.subscription.updated`.
 */
export function changePrice(host: CheckoutHost, id: string, price: string): CheckoutOutcome {
  const sub = subscriptionOf(host, id);
  sub.items.data[0].price = { ...sub.items.data[0].price, id: price };
  return {
    session: {},
    subscription: sub,
    events: [['customer.subscription.updated', { ...sub }]],
  };
}

/** Stripe ends subscription `id` (canceled, or every retry failed). */
export function cancelSubscription(host: CheckoutHost, id: string): CheckoutOutcome {
  const sub = subscriptionOf(host, id);
  Object.assign(sub, { status: 'canceled', canceled_at: nowSeconds(), ended_at: nowSeconds() });
  return {
    session: {},
    subscription: sub,
    events: [['customer.subscription.deleted', { ...sub }]],
  };
}

/** An invoice of the subscription's current period, with its one line of the plan's price. */
function periodInvoice(
  host: CheckoutHost,
  sub: Record<string, any>,
  reason: string,
  paid: boolean,
): Record<string, any> {
  const price = sub.items.data[0].price;
  return host.addInvoice(sub.customer, {
    billing_reason: reason,
    subscription: sub.id,
    status: paid ? 'paid' : 'open',
    amount_due: price.unit_amount,
    amount_paid: paid ? price.unit_amount : 0,
    attempt_count: 1,
    subscription_details: { metadata: sub.metadata },
    lines: {
      object: 'list',
      has_more: false,
      data: [
        {
          id: rid('il'),
          object: 'line_item',
          amount: price.unit_amount,
          currency: 'usd',
          period: { start: sub.current_period_start, end: sub.current_period_end },
          price,
          type: 'subscription',
        },
      ],
    },
  });
}

function subscriptionOf(host: CheckoutHost, id: string): Record<string, any> {
  const sub = host.subscriptions.get(id);
  if (!sub) throw new Error(`no subscription ${id}`);
  return sub;
}
