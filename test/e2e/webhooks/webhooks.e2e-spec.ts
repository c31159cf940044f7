import {
  checkoutSessionObject,
  deliver,
  paymentIntentObject,
  stripeEvent,
} from '../../servers/stripe-events';
import { StripeTestServer } from '../../servers/stripe-server';
import { ledgerOf, newUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'whsec_test_local';

describe('Webhooks: signatures and credit purchases granted exactly once', () => {
  let t: TestApp;
  const stripe = new StripeTestServer();
  const send = (event: Record<string, unknown>) => deliver(t.http, event, { secret: SECRET });
  const eventCount = async () =>
    (await t.db.query('SELECT count(*)::int AS n FROM webhook_events'))[0].n;
  const purchases = async (userId: string) =>
    t.db.query(
      `SELECT amount, reference FROM credit_transactions WHERE "userId" = $1 AND type = 'PURCHASE'`,
      [userId],
    );
  /** A succeeded credit-purchase intent of `credits` for `userId` ($1 per 100 credits). */
  const purchaseIntent = (userId: string, credits = 500) =>
    paymentIntentObject({
      amount: credits,
      metadata: { userId, credits: String(credits), type: 'credit_purchase' },
    });

  beforeAll(async () => {
    await stripe.start();
    t = await createTestApp({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_API_BASE: stripe.url,
    });
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });

  describe('signature verification', () => {
    it.each([
      ['missing', (e: Record<string, any>) => t.http.post('/api/webhooks/payment').send(e)],
      [
        'signed with another secret',
        (e: Record<string, any>) => deliver(t.http, e, { secret: 'whsec_other' }),
      ],
      [
        'a tampered body',
        (e: Record<string, any>) =>
          deliver(t.http, e, {
            secret: SECRET,
            sentBody: JSON.stringify(e).replace('"500"', '"50000"'),
          }),
      ],
      [
        '301 s old',
        (e: Record<string, any>) =>
          deliver(t.http, e, { secret: SECRET, timestamp: Math.floor(Date.now() / 1000) - 301 }),
      ],
    ])('refuses a signature that is %s: 400 {error}, nothing written', async (_case, post) => {
      const u = await newUser(t);
      const before = await eventCount();
      const res = await post(stripeEvent('payment_intent.succeeded', purchaseIntent(u.user.id)));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String), code: 'WEBHOOK_SIGNATURE_INVALID' });
      expect(await eventCount()).toBe(before);
      expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
    });

    it('accepts 299 s old, the payment-signature header, and the /api/payment/webhooks alias', async () => {
      const u = await newUser(t);
      const old = Math.floor(Date.now() / 1000) - 299;
      const ev = () => stripeEvent('payment_intent.succeeded', purchaseIntent(u.user.id, 100));
      await deliver(t.http, ev(), { secret: SECRET, timestamp: old }).expect(200);
      await deliver(t.http, ev(), { secret: SECRET, header: 'payment-signature' }).expect(200);
      const res = await deliver(t.http, ev(), { secret: SECRET, path: '/api/payment/webhooks' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true });
      expect((await ledgerOf(t, u.user.id)).credits).toBe(400);
    });

    it('acknowledges an unhandled event type without recording it', async () => {
      const before = await eventCount();
      const res = await send(stripeEvent('invoice.created', { id: 'in_1', object: 'invoice' }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true });
      expect(await eventCount()).toBe(before);
    });
  });

  it('buys credits end to end: purchase, payment, signed webhook → balance and ledger grow once', async () => {
    const u = await newUser(t);
    await t.http
      .post('/api/credits/purchase')
      .set(u.auth)
      .send({ amount: 12.5, credits: 1250 })
      .expect(200);
    const pi = stripe.succeedPaymentIntent([...stripe.paymentIntents.keys()].pop()!);
    const event = stripeEvent('payment_intent.succeeded', pi);
    await send(event).expect(200, { received: true });
    await send(event).expect(200, { received: true });

    const summary = await t.http.get('/api/credits').set(u.auth).expect(200);
    expect(summary.body.balance).toBe(1350);
    expect(await purchases(u.user.id)).toEqual([{ amount: 1250, reference: pi.id }]);
    const [entry] = (await t.http.get('/api/credits/transactions').set(u.auth)).body.data;
    expect(entry.description).toBe(`Purchase of 1250 credits (12.50 USD, ${pi.id})`);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 1350, ledgerSum: 1350, entries: 2 });
  });

  it('grants once when the same event arrives ten times in parallel', async () => {
    const u = await newUser(t);
    const event = stripeEvent('payment_intent.succeeded', purchaseIntent(u.user.id, 700));
    const results = await Promise.all(Array.from({ length: 10 }, () => send(event)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(await purchases(u.user.id)).toHaveLength(1);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 800, ledgerSum: 800, entries: 2 });
  });

  it('grants once for ten different events of the same payment in parallel', async () => {
    const u = await newUser(t);
    const pi = purchaseIntent(u.user.id, 300);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => send(stripeEvent('payment_intent.succeeded', pi))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 400, ledgerSum: 400, entries: 2 });
  });

  it('grants once for payment_intent.succeeded plus checkout.session.completed of one payment', async () => {
    const u = await newUser(t);
    const pi = purchaseIntent(u.user.id, 900);
    const session = checkoutSessionObject({
      mode: 'payment',
      clientReferenceId: u.user.id,
      customer: 'cus_checkout_1',
      paymentIntent: pi.id,
      amountTotal: 900,
      metadata: { type: 'credit_purchase', credits: '900' },
    });
    await send(stripeEvent('payment_intent.succeeded', pi)).expect(200);
    await send(stripeEvent('checkout.session.completed', session)).expect(200);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 1000, ledgerSum: 1000, entries: 2 });

    // The other order, and both at once, for a second payment.
    const pi2 = purchaseIntent(u.user.id, 50);
    const session2 = {
      ...session,
      id: 'cs_test_2',
      payment_intent: pi2.id,
      amount_total: 50,
      metadata: { type: 'credit_purchase', credits: '50' },
    };
    await Promise.all([
      send(stripeEvent('checkout.session.completed', session2)),
      send(stripeEvent('payment_intent.succeeded', pi2)),
      send(stripeEvent('checkout.session.completed', session2)),
    ]);
    expect(await purchases(u.user.id)).toHaveLength(2);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 1050, ledgerSum: 1050, entries: 3 });
    const [row] = await t.db.query('SELECT "paymentCustomerId" FROM users WHERE id = $1', [
      u.user.id,
    ]);
    expect(row.paymentCustomerId).toBe('cus_checkout_1');
  });

  it('acknowledges and records payments that are not ours, without granting', async () => {
    const u = await newUser(t);
    const events = [
      paymentIntentObject({ amount: 100, metadata: { userId: u.user.id, credits: '100' } }),
      paymentIntentObject({
        amount: 100,
        metadata: { type: 'donation', userId: u.user.id, credits: '100' },
      }),
    ].map((pi) => stripeEvent('payment_intent.succeeded', pi));
    for (const event of events) await send(event).expect(200, { received: true });
    const [{ n }] = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_events WHERE id = ANY($1)',
      [events.map((e) => e.id)],
    );
    expect(n).toBe(events.length);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
  });

  it('answers 500 and keeps for replay a paid credit purchase it cannot apply', async () => {
    const u = await newUser(t);
    const unusable: Record<string, string>[] = [
      { type: 'credit_purchase', userId: u.user.id },
      { type: 'credit_purchase', userId: u.user.id, credits: '-5' },
      { type: 'credit_purchase', userId: u.user.id, credits: 'lots' },
      { type: 'credit_purchase', credits: '100' },
      { type: 'credit_purchase', userId: '00000000-0000-4000-8000-000000000000', credits: '100' },
      { type: 'credit_purchase', userId: 'not-a-uuid', credits: '100' },
    ];
    const events = unusable.map((metadata) =>
      stripeEvent('payment_intent.succeeded', paymentIntentObject({ amount: 100, metadata })),
    );
    const session = checkoutSessionObject({
      mode: 'payment',
      clientReferenceId: '00000000-0000-4000-8000-000000000001',
      paymentIntent: null,
      amountTotal: 100,
      metadata: { type: 'credit_purchase', credits: '100' },
    });
    events.push(stripeEvent('checkout.session.completed', session));
    for (const event of events) {
      const res = await send(event).expect(500);
      expect(res.body).toEqual({ error: expect.any(String), code: 'WEBHOOK_HANDLER_FAILED' });
    }
    const ids = events.map((e) => e.id);
    const kept = await t.db.query(
      'SELECT "eventId", error FROM webhook_failures WHERE "eventId" = ANY($1)',
      [ids],
    );
    expect(kept.map((f: { eventId: string }) => f.eventId).sort()).toEqual([...ids].sort());
    for (const f of kept) expect(f.error).toMatch(/^UnappliableEvent: Paid /);
    expect(kept.map((f: { error: string }) => f.error).join()).not.toContain('not-a-uuid');
    const [{ n }] = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_events WHERE id = ANY($1)',
      [ids],
    );
    expect(n).toBe(0);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
  });

  it('answers 500 when the handler fails, keeps nothing, and grants exactly once on retry', async () => {
    const u = await newUser(t);
    const event = stripeEvent('payment_intent.succeeded', purchaseIntent(u.user.id, 400));
    // A real fault inside the transaction, after the event row and the ledger row are written.
    await t.db.query(`
      CREATE FUNCTION fail_balance_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'injected failure'; END $$;
      CREATE TRIGGER fail_balance_update BEFORE UPDATE OF credits ON users
        FOR EACH ROW EXECUTE FUNCTION fail_balance_update();`);
    try {
      const failed = await send(event).expect(500);
      expect(failed.body).toEqual({ error: expect.any(String), code: 'WEBHOOK_HANDLER_FAILED' });
      expect(JSON.stringify(failed.body)).not.toContain('injected');
    } finally {
      await t.db.query(`
        DROP TRIGGER fail_balance_update ON users; DROP FUNCTION fail_balance_update();`);
    }
    const kept = await t.db.query('SELECT 1 FROM webhook_events WHERE id = $1', [event.id]);
    expect(kept).toHaveLength(0);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });

    await send(event).expect(200, { received: true });
    await send(event).expect(200, { received: true });
    expect(await purchases(u.user.id)).toHaveLength(1);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 500, ledgerSum: 500, entries: 2 });
  });

  it('keeps the ledger invariant for every user after all of it', async () => {
    const broken = await t.db.query(
      `SELECT u.id FROM users u
       WHERE u.credits < 0 OR u.credits + (SELECT COALESCE(SUM(amount), 0) FROM credit_holds h
         WHERE h."userId" = u.id) <> (SELECT COALESCE(SUM(amount), 0) FROM credit_transactions ct
         WHERE ct."userId" = u.id)`,
    );
    expect(broken).toEqual([]);
  });
});
