import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  disputeObject,
  invoiceObject,
  paymentIntentObject,
  rid,
  subscriptionObject,
} from './stripe-events';
import { expandIntent, StripeCheckout } from './stripe-checkout';
import { listRoute } from './stripe-lists';
import { parseForm, type StripeFailure, type StripeRecordedRequest } from './stripe-form';
import { alipayAuthorize, confirmWallet, failAttempt, refundObject } from './stripe-wallets';

export { parseForm, type StripeFailure, type StripeRecordedRequest };

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * A local server speaking Stripe's REST protocol for the calls the service makes: customers,
 * subscriptions (with `expand`), payment intents, refunds, invoice lists and retrieves, Checkout
 * Sessions and portal sessions (stripe-checkout.ts), payment intent and session lists
 * (stripe-lists.ts). The
 * real `stripe` SDK reaches it through STRIPE_API_BASE. It checks the secret key, replays
 * answers for a repeated Idempotency-Key (400 `idempotency_error` when the parameters
 * differ), records every request, and fails on demand with Stripe-shaped errors.
 */
export class StripeTestServer {
  readonly requests: StripeRecordedRequest[] = [];
  readonly customers = new Map<string, Record<string, any>>();
  readonly subscriptions = new Map<string, Record<string, any>>();
  readonly paymentIntents = new Map<string, Record<string, any>>();
  readonly refunds = new Map<string, Record<string, any>>();
  readonly disputes = new Map<string, Record<string, any>>();
  /** Invoices by customer id, newest first. */
  readonly invoices = new Map<string, Record<string, any>[]>();
  private readonly idempotent = new Map<string, { fingerprint: string; body: unknown }>();
  private readonly failures: { path: string; failure: StripeFailure }[] = [];
  private server?: Server;
  /**
   * Optional handler of `/_test/...` paths (no key needed), e.g. the CLI's "pay this intent
   * and deliver the signed webhook". Answers `{status, body}`.
   */
  control?: (method: string, path: string) => Promise<{ status: number; body: unknown }>;
  /** Base URL to use as STRIPE_API_BASE, e.g. `http://127.0.0.1:40123`. */
  url = '';
  /** Largest page of a list answered (Stripe's is 100); lower it to make the SDK page. */
  listPageCap = 100;
  /** Checkout Sessions, portal sessions, and the helpers that pay and renew them. */
  readonly checkout = new StripeCheckout(this);

  constructor(readonly secretKey = 'sk_test_local') {}

  /** The next `times` requests whose path starts with `path` answer `failure`. */
  failNext(path: string, failure: StripeFailure, times = 1): void {
    for (let i = 0; i < times; i++) this.failures.push({ path, failure });
  }

  /** Forgets recorded requests and pending failures (state is kept). */
  reset(): void {
    this.requests.length = 0;
    this.failures.length = 0;
  }

  /** Marks a payment intent as paid, as confirming it on the client would; returns it. */
  succeedPaymentIntent(id: string): Record<string, any> {
    const pi = this.paymentIntents.get(id);
    if (!pi) throw new Error(`no payment intent ${id}`);
    Object.assign(pi, {
      status: 'succeeded',
      amount_received: pi.amount,
      latest_charge: rid('ch'),
      next_action: null,
      last_payment_error: null,
    });
    return pi;
  }

  /** The customer authorised a wallet payment whose result is not known yet; returns it. */
  processPaymentIntent(id: string): Record<string, any> {
    return Object.assign(this.intent(id), { status: 'processing', next_action: null });
  }

  /** The attempt failed (e.g. the QR code was not paid): `requires_payment_method`; returns it. */
  failPaymentIntent(id: string): Record<string, any> {
    const pi = this.intent(id);
    failAttempt(pi);
    return pi;
  }

  /** The intent expired or was canceled; returns it. */
  cancelPaymentIntent(id: string, reason = 'abandoned'): Record<string, any> {
    return Object.assign(this.intent(id), {
      status: 'canceled',
      cancellation_reason: reason,
      canceled_at: nowSeconds(),
      next_action: null,
    });
  }

  /**
   * Settles a pending (wallet) refund as `succeeded` or `failed`; a failed one gives the amount
   * back to the charge, as Stripe does. Returns the refund.
   */
  settleRefund(id: string, status: 'succeeded' | 'failed'): Record<string, any> {
    const refund = this.refunds.get(id);
    if (!refund) throw new Error(`no refund ${id}`);
    if (refund.status === 'pending' && status === 'failed')
      this.intent(refund.payment_intent).amount_refunded -= refund.amount;
    return Object.assign(refund, {
      status,
      ...(status === 'failed' ? { failure_reason: 'unknown' } : {}),
    });
  }

  /**
   * The cardholder disputes the paid intent's charge (its full amount): returns the new dispute,
   * `needs_response`, the object of `charge.dispute.created`.
   */
  disputePaymentIntent(id: string): Record<string, any> {
    const pi = this.intent(id);
    if (pi.status !== 'succeeded') throw new Error(`payment intent ${id} is not paid`);
    const dispute = disputeObject({
      paymentIntent: id,
      charge: pi.latest_charge,
      amount: pi.amount,
      currency: pi.currency,
    });
    this.disputes.set(dispute.id, dispute);
    return dispute;
  }

  /** The issuer decides the dispute (`won`, `lost`, `warning_closed`); returns it. */
  closeDispute(id: string, status: 'won' | 'lost' | 'warning_closed'): Record<string, any> {
    const dispute = this.disputes.get(id);
    if (!dispute) throw new Error(`no dispute ${id}`);
    return Object.assign(dispute, { status });
  }

  private intent(id: string): Record<string, any> {
    const pi = this.paymentIntents.get(id);
    if (!pi) throw new Error(`no payment intent ${id}`);
    return pi;
  }

  /** Runs when the customer leaves Alipay's page (the CLI delivers the webhook there). */
  onAlipay?: (pi: Record<string, any>) => Promise<void>;

  /** Adds an invoice to a customer's list (newest first); amounts in minor units. */
  addInvoice(customer: string, fields: Record<string, any> = {}): Record<string, any> {
    const list = this.invoices.get(customer) ?? [];
    const invoice = invoiceObject({ customer, number: `INV-${list.length + 1}`, ...fields });
    this.invoices.set(customer, [invoice, ...list]);
    return invoice;
  }

  /** Listens on 127.0.0.1:`port` (0 = any free port). */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const [path, search = ''] = (req.url ?? '').split('?');
    const method = req.method ?? 'GET';
    const header = (name: string) => req.headers[name] as string | undefined;
    const record: StripeRecordedRequest = {
      method,
      path,
      query: parseForm(search),
      body: parseForm(raw),
      stripeVersion: header('stripe-version'),
      idempotencyKey: header('idempotency-key'),
      authorization: header('authorization'),
    };
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      res
        .writeHead(status, {
          'content-type': 'application/json',
          'request-id': rid('req'),
          ...headers,
        })
        .end(JSON.stringify(body));
    };

    const alipay = /^\/alipay\/authorize\/([\w]+)$/.exec(path);
    if (method === 'GET' && alipay) {
      void alipayAuthorize(this, alipay[1], record.query.outcome === 'fail', res);
      return;
    }
    const pay = /^\/checkout\/pay\/([\w]+)$/.exec(path);
    if (method === 'GET' && pay) {
      void this.checkout.page(pay[1], record.query.method, res);
      return;
    }
    if (this.control && path.startsWith('/_test/')) {
      this.control(method, path).then(
        (r) => send(r.status, r.body),
        (e: Error) => send(500, { error: { type: 'api_error', message: e.message } }),
      );
      return;
    }
    this.requests.push(record);
    if (record.authorization !== `Bearer ${this.secretKey}`)
      return send(401, {
        error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_****' },
      });
    const failureAt = this.failures.findIndex((f) => path.startsWith(f.path));
    if (failureAt !== -1) {
      const [{ failure }] = this.failures.splice(failureAt, 1);
      return send(failure.status, { error: failure.error });
    }
    const key = record.idempotencyKey;
    const fingerprint = `${method} ${path} ${raw}`;
    const seen = key ? this.idempotent.get(key) : undefined;
    if (seen && seen.fingerprint !== fingerprint)
      return send(400, {
        error: {
          type: 'idempotency_error',
          message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
        },
      });
    if (seen) return send(200, seen.body, { 'idempotent-replayed': 'true' });

    const result = this.route(method, path, record);
    if ('error' in result) return send(result.status ?? 400, { error: result.error });
    if (key && method === 'POST') this.idempotent.set(key, { fingerprint, body: result.body });
    send(200, result.body);
  }

  private route(
    method: string,
    path: string,
    r: StripeRecordedRequest,
  ): { body: unknown } | { error: StripeFailure['error']; status?: number } {
    const b = r.body;
    const invalid = (message: string, more: Record<string, string> = {}, status = 400) => ({
      status,
      error: { type: 'invalid_request_error', message, ...more },
    });
    const missing = (what: string, id: string, param = 'id', status = 404) =>
      invalid(`No such ${what}: '${id}'`, { code: 'resource_missing', param }, status);
    const [, , resource, id] = path.split('/');
    const checkout = this.checkout.route(method, path, b);
    if (checkout) return checkout;
    const lists = { paymentIntents: this.paymentIntents, sessions: this.checkout.sessions };
    const listed = listRoute({ ...lists, pageCap: this.listPageCap }, method, path, r.query);
    if (listed) return listed;
    if (method === 'POST' && path === '/v1/customers') {
      const customer = {
        id: rid('cus'),
        object: 'customer',
        email: b.email ?? null,
        name: b.name ?? null,
        metadata: b.metadata ?? {},
        created: nowSeconds(),
      };
      this.customers.set(customer.id, customer);
      return { body: customer };
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      if (!/^\d+$/.test(b.amount ?? ''))
        return invalid(`Invalid integer: ${b.amount}`, { param: 'amount' });
      if (Number(b.amount) < 50)
        return invalid('Amount must be at least $0.50 usd', {
          code: 'amount_too_small',
          param: 'amount',
        });
      const pi = paymentIntentObject({
        amount: Number(b.amount),
        currency: b.currency,
        status: 'requires_payment_method',
        metadata: b.metadata,
      });
      pi.description = b.description ?? null;
      const refused = confirmWallet(pi, b, this.url);
      if (refused) return refused;
      this.paymentIntents.set(pi.id, pi);
      return { body: pi };
    }
    if (method === 'POST' && resource === 'payment_intents' && path.endsWith('/cancel')) {
      const pi = this.paymentIntents.get(id);
      if (!pi) return missing('payment_intent', id, 'intent');
      if (['succeeded', 'canceled', 'processing'].includes(pi.status))
        return invalid(
          `You cannot cancel this PaymentIntent because it has a status of ${pi.status}.`,
          { code: 'payment_intent_unexpected_state' },
        );
      return {
        body: this.cancelPaymentIntent(id, b.cancellation_reason ?? 'requested_by_customer'),
      };
    }
    if (method === 'GET' && resource === 'payment_intents' && id) {
      const pi = this.paymentIntents.get(id);
      return pi
        ? { body: expandIntent(pi, r.query.expand) }
        : missing('payment_intent', id, 'intent');
    }
    if (method === 'POST' && path === '/v1/subscriptions') {
      if (!this.customers.has(b.customer)) return missing('customer', b.customer, 'customer', 400);
      const sub = subscriptionObject({
        customer: b.customer,
        priceId: b.items?.[0]?.price,
        status: 'incomplete',
        metadata: b.metadata,
      });
      const intent = paymentIntentObject({
        amount: 999,
        status: 'requires_payment_method',
        customer: b.customer,
      });
      this.paymentIntents.set(intent.id, intent);
      const invoice = this.addInvoice(b.customer, {
        id: sub.latest_invoice,
        status: 'open',
        amount_paid: 0,
        subscription: sub.id,
        payment_intent: intent.id,
      });
      this.subscriptions.set(sub.id, sub);
      const expand: string[] = b.expand ?? [];
      if (!expand.includes('latest_invoice.payment_intent')) return { body: sub };
      return { body: { ...sub, latest_invoice: { ...invoice, payment_intent: intent } } };
    }
    if (method === 'GET' && resource === 'subscriptions' && id) {
      const sub = this.subscriptions.get(id);
      return sub ? { body: sub } : missing('subscription', id);
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const pi = this.paymentIntents.get(b.payment_intent);
      if (!pi) return missing('payment_intent', b.payment_intent, 'payment_intent', 400);
      if (pi.status !== 'succeeded')
        return invalid(
          `This PaymentIntent (${pi.id}) does not have a successful charge to refund.`,
        );
      const amount =
        b.amount === undefined ? pi.amount - (pi.amount_refunded ?? 0) : Number(b.amount);
      if (amount > pi.amount - (pi.amount_refunded ?? 0))
        return invalid(`Refund amount (${amount}) is greater than the unrefunded amount.`, {
          param: 'amount',
        });
      pi.amount_refunded = (pi.amount_refunded ?? 0) + amount;
      const refund = refundObject(pi, amount, b.metadata ?? {});
      this.refunds.set(refund.id, refund);
      return { body: refund };
    }
    if (method === 'GET' && path === '/v1/invoices') {
      const limit = Math.min(Number(r.query.limit ?? 10), 100);
      const all = this.invoices.get(r.query.customer) ?? [];
      return {
        body: {
          object: 'list',
          url: '/v1/invoices',
          has_more: all.length > limit,
          data: all.slice(0, limit),
        },
      };
    }
    return invalid(`Unrecognized request URL (${method}: ${path}).`, {}, 404);
  }
}
