import type { ServerResponse } from 'node:http';
import { paymentIntentObject, rid } from './stripe-events';
import {
  cancelSubscription,
  changePrice,
  failRenewal,
  renewSubscription,
  startSubscription,
} from './stripe-subscription-life';
import type { StripeFailure } from './stripe-form';

const nowSeconds = () => Math.floor(Date.now() / 1000);
const DAY = 86400;

/** An event the processor would send: its type and object, in the order Stripe sends them. */
export type StripeEmitted = [type: string, object: Record<string, any>];

/** What completing a Checkout Session made, and the events it sends. */
export interface CheckoutOutcome {
  session: Record<string, any>;
  paymentIntent?: Record<string, any>;
  subscription?: Record<string, any>;
  invoice?: Record<string, any>;
  events: StripeEmitted[];
}

/** The parts of the local Stripe server that Checkout uses. */
export interface CheckoutHost {
  url: string;
  customers: Map<string, Record<string, any>>;
  subscriptions: Map<string, Record<string, any>>;
  paymentIntents: Map<string, Record<string, any>>;
  addInvoice(customer: string, fields?: Record<string, any>): Record<string, any>;
}

type Routed = { body: unknown } | { error: StripeFailure['error']; status?: number };

const invalid = (message: string, param?: string): Routed => ({
  status: 400,
  error: { type: 'invalid_request_error', message, ...(param ? { param } : {}) },
});

/**
 * Stripe Checkout and the customer portal on the local Stripe server, shaped after API version
 * 2024-06-20: `POST /v1/checkout/sessions` (payment and subscription mode), `GET
 * /v1/checkout/sessions/{id}`, `POST /v1/billing_portal/sessions`. The customer's side is
 * played by `complete` (or the page at the session's `url`), which pays and answers the events
 * Stripe would send; the renewal helpers play the subscription's later life.
 */
export class StripeCheckout {
  readonly sessions = new Map<string, Record<string, any>>();
  readonly portalSessions = new Map<string, Record<string, any>>();
  /** Runs when the customer pays on the session's page (the CLI delivers the events there). */
  onPaid?: (outcome: CheckoutOutcome) => Promise<void>;

  constructor(private readonly host: CheckoutHost) {}

  /** Answers the Checkout and portal requests; undefined for any other path. */
  route(method: string, path: string, b: Record<string, any>): Routed | undefined {
    if (method === 'POST' && path === '/v1/checkout/sessions') return this.create(b);
    const session = /^\/v1\/checkout\/sessions\/([\w]+)$/.exec(path);
    if (method === 'GET' && session) {
      const found = this.sessions.get(session[1]);
      return found
        ? { body: found }
        : {
            status: 404,
            error: {
              type: 'invalid_request_error',
              code: 'resource_missing',
              message: `No such checkout.session: '${session[1]}'`,
              param: 'session',
            },
          };
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!this.host.customers.has(b.customer))
        return invalid(`No such customer: '${b.customer}'`, 'customer');
      const id = rid('bps');
      const portal = {
        id,
        object: 'billing_portal.session',
        created: nowSeconds(),
        customer: b.customer,
        livemode: false,
        return_url: b.return_url ?? null,
        url: `${this.host.url}/p/session/${id}`,
      };
      this.portalSessions.set(id, portal);
      return { body: portal };
    }
    return undefined;
  }

  private create(b: Record<string, any>): Routed {
    if (b.mode !== 'payment' && b.mode !== 'subscription')
      return invalid('Invalid mode: must be one of payment, setup or subscription', 'mode');
    if (!b.success_url) return invalid('Missing required param: success_url.', 'success_url');
    const items: Record<string, any>[] = b.line_items ?? [];
    if (!items.length) return invalid('Missing required param: line_items.', 'line_items');
    if (b.customer && !this.host.customers.has(b.customer))
      return invalid(`No such customer: '${b.customer}'`, 'customer');
    let amount = 0;
    let currency = 'usd';
    for (const [i, item] of items.entries()) {
      const quantity = Number(item.quantity ?? 1);
      if (b.mode === 'subscription') {
        if (!/^price_\w+$/.test(item.price ?? ''))
          return invalid(`No such price: '${item.price}'`, `line_items[${i}][price]`);
        amount += 999 * quantity;
      } else {
        const unit = Number(item.price_data?.unit_amount);
        if (!Number.isInteger(unit) || unit < 50)
          return invalid('Amount must be at least $0.50 usd', `line_items[${i}][price_data]`);
        amount += unit * quantity;
        currency = item.price_data.currency;
      }
    }
    if (b.mode === 'subscription' && b.payment_intent_data)
      return invalid('You can not pass `payment_intent_data` in `subscription` mode.');
    const id = rid('cs_test');
    const session = {
      id,
      object: 'checkout.session',
      amount_subtotal: amount,
      amount_total: amount,
      cancel_url: b.cancel_url ?? null,
      client_reference_id: b.client_reference_id ?? null,
      created: nowSeconds(),
      currency,
      customer: b.customer ?? null,
      expires_at: nowSeconds() + DAY,
      livemode: false,
      metadata: b.metadata ?? {},
      mode: b.mode,
      payment_intent: null,
      payment_method_types: b.payment_method_types ?? ['card'],
      payment_status: 'unpaid',
      status: 'open',
      subscription: null,
      success_url: b.success_url,
      url: `${this.host.url}/checkout/pay/${id}`,
      // Kept to build what completing the session makes; Stripe does not return them.
      _paymentIntentData: b.payment_intent_data ?? {},
      _subscriptionData: b.subscription_data ?? {},
      _price: items[0].price,
    };
    this.sessions.set(id, session);
    return { body: this.visible(session) };
  }

  /**
   * The customer pays session `id` with `method`. A payment session makes its payment intent
   * (metadata from `payment_intent_data`): paid at once, or with `async` left `processing`
   * (`payment_status: unpaid`) until `settle`. A subscription session makes the active
   * subscription and its paid first invoice. Returns them with the events Stripe sends.
   */
  complete(
    id: string,
    opts: { method?: 'card' | 'alipay' | 'wechat_pay'; async?: boolean } = {},
  ): CheckoutOutcome {
    const session = this.sessions.get(id);
    if (!session || session.status !== 'open') throw new Error(`no open checkout session ${id}`);
    const method = opts.method ?? 'card';
    if (!session.payment_method_types.includes(method))
      throw new Error(`session ${id} does not take ${method}`);
    session.status = 'complete';
    if (session.mode === 'subscription') return this.subscribe(session);
    const pi = paymentIntentObject({
      amount: session.amount_total,
      currency: session.currency,
      status: opts.async ? 'processing' : 'succeeded',
      metadata: session._paymentIntentData.metadata ?? {},
      customer: session.customer,
    });
    pi.payment_method_types = [method];
    pi.payment_method = pi.payment_method ?? rid('pm');
    pi.setup_future_usage = session._paymentIntentData.setup_future_usage ?? null;
    this.host.paymentIntents.set(pi.id, pi);
    Object.assign(session, {
      payment_intent: pi.id,
      payment_status: opts.async ? 'unpaid' : 'paid',
    });
    const events: StripeEmitted[] = [['checkout.session.completed', this.visible(session)]];
    if (!opts.async) events.push(['payment_intent.succeeded', { ...pi }]);
    return { session: this.visible(session), paymentIntent: pi, events };
  }

  /** A delayed payment of session `id` settles: `succeeded` or `failed`, with its events. */
  settle(id: string, result: 'succeeded' | 'failed'): CheckoutOutcome {
    const session = this.sessions.get(id);
    const pi = session && this.host.paymentIntents.get(session.payment_intent);
    if (!session || !pi || pi.status !== 'processing') throw new Error(`nothing to settle: ${id}`);
    if (result === 'succeeded') {
      Object.assign(pi, {
        status: 'succeeded',
        amount_received: pi.amount,
        latest_charge: rid('ch'),
      });
      session.payment_status = 'paid';
    } else Object.assign(pi, { status: 'requires_payment_method', payment_method: null });
    const view = this.visible(session);
    const events: StripeEmitted[] =
      result === 'succeeded'
        ? [
            ['checkout.session.async_payment_succeeded', view],
            ['payment_intent.succeeded', { ...pi }],
          ]
        : [
            ['checkout.session.async_payment_failed', view],
            ['payment_intent.payment_failed', { ...pi }],
          ];
    return { session: view, paymentIntent: pi, events };
  }

  /** A new period of subscription `id` is paid: its invoice (`subscription_cycle`) and events. */
  renew(id: string): CheckoutOutcome & { invoice: Record<string, any> } {
    return renewSubscription(this.host, id);
  }

  /** A renewal of subscription `id` fails: the invoice stays open, the subscription past due. */
  failRenewal(id: string): CheckoutOutcome & { invoice: Record<string, any> } {
    return failRenewal(this.host, id);
  }

  /** Subscription `id` moves to `price` (an upgrade, or a downgrade at the period's end). */
  changePrice(id: string, price: string): CheckoutOutcome {
    return changePrice(this.host, id, price);
  }

  /** Stripe ends subscription `id` (canceled, or every retry failed). */
  cancel(id: string): CheckoutOutcome {
    return cancelSubscription(this.host, id);
  }

  /**
   * The page at the session's `url`: pays with `?method=` (card by default), runs `onPaid` and
   * redirects to the success URL with the session id filled in.
   */
  async page(id: string, method: string | undefined, res: ServerResponse): Promise<void> {
    let outcome: CheckoutOutcome;
    try {
      outcome = this.complete(id, { method: (method as 'card') ?? 'card' });
    } catch (err) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end((err as Error).message);
      return;
    }
    await this.onPaid?.(outcome).catch(() => undefined);
    const location = String(outcome.session.success_url).replace('{CHECKOUT_SESSION_ID}', id);
    res.writeHead(303, { location }).end();
  }

  private subscribe(session: Record<string, any>): CheckoutOutcome {
    const { subscription, invoice } = startSubscription(this.host, session);
    Object.assign(session, { subscription: subscription.id, payment_status: 'paid' });
    return {
      session: this.visible(session),
      subscription,
      invoice,
      events: [
        ['checkout.session.completed', this.visible(session)],
        ['customer.subscription.created', { ...subscription }],
        ['invoice.paid', invoice],
      ],
    };
  }

  /** The session as Stripe shows it (without the fields kept for completing it). */
  private visible(session: Record<string, any>): Record<string, any> {
    return Object.fromEntries(Object.entries(session).filter(([k]) => !k.startsWith('_')));
  }
}

/**
 * `GET /v1/payment_intents/{id}` with `expand[]=payment_method`: the payment method as an object
 * of the intent's method type.
 */
export function expandIntent(pi: Record<string, any>, expand: unknown): Record<string, any> {
  const wanted = Array.isArray(expand) ? expand : expand ? [expand] : [];
  if (!wanted.includes('payment_method') || typeof pi.payment_method !== 'string') return pi;
  return {
    ...pi,
    payment_method: {
      id: pi.payment_method,
      object: 'payment_method',
      type: pi.payment_method_types?.[0] ?? 'card',
    },
  };
}
