import { StripeTestServer } from '../../servers/stripe-server';
import { newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const PRICES = { BASIC: 'price_basic_test', PRO: 'price_pro_test' };

describe('Payments: subscriptions, payment intents, credit purchases (real stripe SDK)', () => {
  let t: TestApp;
  const stripe = new StripeTestServer();
  const posts = (path: string) =>
    stripe.requests.filter((r) => r.method === 'POST' && r.path === path);

  beforeAll(async () => {
    await stripe.start();
    t = await createTestApp({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: 'pk_test_local',
      STRIPE_WEBHOOK_SECRET: 'whsec_test_local',
      STRIPE_PRICE_BASIC: PRICES.BASIC,
      STRIPE_PRICE_PRO: PRICES.PRO,
      STRIPE_API_BASE: stripe.url,
    });
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });
  beforeEach(() => stripe.reset());

  it('GET /api/payment/config gives the publishable key and plan prices, never a secret', async () => {
    const res = await t.http.get('/api/payment/config').expect(200);
    expect(res.body).toEqual({
      publishableKey: 'pk_test_local',
      plans: [
        { plan: 'BASIC', priceId: PRICES.BASIC },
        { plan: 'PRO', priceId: PRICES.PRO },
      ],
    });
    expect(JSON.stringify(res.body)).not.toMatch(/sk_test|whsec/);
  });

  describe('POST /api/payment/create-subscription', () => {
    it('creates the customer once, stores it, and returns the first invoice intent secret', async () => {
      const u = await newUser(t, { name: 'Ada Lovelace' });
      const first = await t.http
        .post('/api/payment/create-subscription')
        .set(u.auth)
        .send({ priceId: PRICES.BASIC })
        .expect(200);
      const sub = stripe.subscriptions.get(first.body.subscriptionId)!;
      const intent = stripe.paymentIntents.get(
        stripe.invoices.get(sub.customer)![0].payment_intent,
      )!;
      expect(first.body).toEqual({ subscriptionId: sub.id, clientSecret: intent.client_secret });

      const [customer] = posts('/v1/customers');
      expect(customer.body).toEqual({
        email: u.user.email,
        name: 'Ada Lovelace',
        metadata: { userId: u.user.id },
      });
      const [created] = posts('/v1/subscriptions');
      expect(created.body).toEqual({
        customer: sub.customer,
        items: [{ price: PRICES.BASIC }],
        payment_behavior: 'default_incomplete',
        payment_settings: { save_default_payment_method: 'on_subscription' },
        expand: ['latest_invoice.payment_intent'],
        metadata: { userId: u.user.id },
      });
      for (const r of [customer, created]) {
        expect(r.stripeVersion).toBe('2024-06-20');
        expect(r.idempotencyKey).toEqual(expect.any(String));
      }
      const [row] = await t.db.query('SELECT "paymentCustomerId" FROM users WHERE id = $1', [
        u.user.id,
      ]);
      expect(row.paymentCustomerId).toBe(sub.customer);

      await t.http
        .post('/api/payment/create-subscription')
        .set(u.auth)
        .send({ priceId: PRICES.PRO })
        .expect(200);
      expect(posts('/v1/customers')).toHaveLength(1);
      expect(posts('/v1/subscriptions')[1].body.customer).toBe(sub.customer);
    });

    it('creates one customer for concurrent first subscriptions', async () => {
      const u = await newUser(t);
      const results = await Promise.all(
        [1, 2, 3].map(() =>
          t.http.post('/api/payment/create-subscription').set(u.auth).send({ priceId: PRICES.PRO }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(new Set(posts('/v1/customers').map((r) => r.idempotencyKey)).size).toBe(1);
      expect(stripe.customers.size).toBeGreaterThan(0);
      const customers = [...stripe.customers.values()].filter((c) => c.email === u.user.email);
      expect(customers).toHaveLength(1);
    });

    it('refuses a price that is not a plan (400), a missing session (401) and bad bodies', async () => {
      const u = await newUser(t);
      const bad = await t.http
        .post('/api/payment/create-subscription')
        .set(u.auth)
        .send({ priceId: 'price_other' })
        .expect(400);
      expect(bad.body).toEqual({ error: expect.any(String), code: 'VALIDATION_FAILED' });
      await t.http.post('/api/payment/create-subscription').set(u.auth).send({}).expect(400);
      const anon = await t.http
        .post('/api/payment/create-subscription')
        .send({ priceId: PRICES.BASIC })
        .expect(401);
      expect(anon.body.code).toBe('UNAUTHORIZED');
      expect(stripe.requests).toHaveLength(0);
    });
  });

  describe('POST /api/payment/create-payment-intent', () => {
    let u: TestUser;
    beforeAll(async () => (u = await newUser(t)));

    it.each([
      [19.99, '1999'],
      [1234.56, '123456'],
      [0.29, '29'],
    ])('sends amount %p as exactly %p minor units', async (amount, minor) => {
      const res = await t.http
        .post('/api/payment/create-payment-intent')
        .set(u.auth)
        .send({ amount });
      const [sent] = posts('/v1/payment_intents');
      expect(sent.body.amount).toBe(minor);
      expect(sent.body.currency).toBe('usd');
      if (Number(minor) >= 50) {
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          clientSecret: stripe.paymentIntents.get([...stripe.paymentIntents.keys()].pop()!)!
            .client_secret,
        });
      } else {
        // Stripe's minimum charge is 0.50 USD: the processor's 400 is passed on as a 400.
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          error: 'Amount must be at least $0.50 usd',
          code: 'PAYMENT_REQUEST_INVALID',
          param: 'amount',
        });
      }
    });

    it('sends 0.1 as 10 (and passes on the processor refusal as 400)', async () => {
      await t.http
        .post('/api/payment/create-payment-intent')
        .set(u.auth)
        .send({ amount: 0.1 })
        .expect(400);
      expect(posts('/v1/payment_intents')[0].body.amount).toBe('10');
    });

    it('takes a currency, lower-cased; refuses zero-decimal currencies and 3 decimals', async () => {
      const send = (body: object) =>
        t.http.post('/api/payment/create-payment-intent').set(u.auth).send(body);
      await send({ amount: 5, currency: 'EUR' }).expect(200);
      expect(posts('/v1/payment_intents')[0].body).toEqual(
        expect.objectContaining({ amount: '500', currency: 'eur' }),
      );
      expect((await send({ amount: 500, currency: 'jpy' })).status).toBe(400);
      expect((await send({ amount: 1.999 })).status).toBe(400);
      expect((await send({ amount: -5 })).status).toBe(400);
      expect((await send({ amount: '5' })).status).toBe(400);
      expect(posts('/v1/payment_intents')).toHaveLength(1);
    });

    it('needs a session', async () => {
      await t.http.post('/api/payment/create-payment-intent').send({ amount: 5 }).expect(401);
      expect(stripe.requests).toHaveLength(0);
    });

    it('derives the Idempotency-Key from the client header: a retry gets the same intent', async () => {
      const send = (user: TestUser, amount: number, key: string) =>
        t.http
          .post('/api/payment/create-payment-intent')
          .set(user.auth)
          .set('Idempotency-Key', key)
          .send({ amount });
      const a = await send(u, 7, 'client-key-1').expect(200);
      const b = await send(u, 7, 'client-key-1').expect(200);
      expect(b.body.clientSecret).toBe(a.body.clientSecret);
      const [first, second] = posts('/v1/payment_intents');
      expect(second.idempotencyKey).toBe(first.idempotencyKey);
      expect(first.idempotencyKey).not.toContain('client-key-1');

      const other = await newUser(t);
      const c = await send(other, 7, 'client-key-1').expect(200);
      expect(c.body.clientSecret).not.toBe(a.body.clientSecret);
      // The same key with other parameters is the processor's idempotency error: 409.
      const d = await send(u, 8, 'client-key-1').expect(409);
      expect(d.body.code).toBe('CONFLICT');
      expect((await send(u, 7, 'x'.repeat(300))).status).toBe(400);
    });
  });

  describe('POST /api/credits/purchase', () => {
    it('creates a USD intent with metadata userId, credits and type (rule 3)', async () => {
      const u = await newUser(t);
      const res = await t.http
        .post('/api/credits/purchase')
        .set(u.auth)
        .send({ amount: 19.99, credits: 1999 })
        .expect(200);
      const [sent] = posts('/v1/payment_intents');
      expect(sent.body).toEqual(
        expect.objectContaining({
          amount: '1999',
          currency: 'usd',
          metadata: { userId: u.user.id, credits: '1999', type: 'credit_purchase' },
        }),
      );
      expect(sent.idempotencyKey).toEqual(expect.any(String));
      expect(sent.stripeVersion).toBe('2024-06-20');
      const pi = [...stripe.paymentIntents.values()].pop()!;
      // The answer also carries the purchase record and the next action (none for card).
      expect(res.body).toEqual({
        clientSecret: pi.client_secret,
        purchaseId: expect.any(String),
        status: 'pending',
        nextAction: null,
      });
    });

    it.each([
      [{ amount: 0, credits: 1 }, 'zero amount'],
      [{ amount: 1000.01, credits: 1 }, 'above PURCHASE_MAX_USD'],
      [{ amount: 0.01, credits: 1_000_000 }, 'a million credits for a cent'],
      [{ amount: 10, credits: 1001 }, 'more than amount × CREDITS_PER_USD'],
      [{ amount: 10, credits: 1.5 }, 'fractional credits'],
      [{ amount: 10, credits: -5 }, 'negative credits'],
      [{ amount: 10 }, 'missing credits'],
      [{ amount: 10, credits: 10, userId: 'x' }, 'unknown field'],
    ])('answers 400 for %p (%s) without calling the processor', async (body, _label) => {
      const u = await newUser(t);
      const res = await t.http.post('/api/credits/purchase').set(u.auth).send(body).expect(400);
      expect(res.body).toEqual(
        expect.objectContaining({ error: expect.any(String), code: 'VALIDATION_FAILED' }),
      );
      expect(stripe.requests).toHaveLength(0);
    });

    it('needs a session', async () => {
      await t.http.post('/api/credits/purchase').send({ amount: 1, credits: 100 }).expect(401);
    });
  });

  describe('processor errors', () => {
    const purchase = async () => {
      const u = await newUser(t);
      return t.http.post('/api/credits/purchase').set(u.auth).send({ amount: 5, credits: 500 });
    };

    it('card errors → 402 PAYMENT_FAILED without account details', async () => {
      stripe.failNext('/v1/payment_intents', {
        status: 402,
        error: {
          type: 'card_error',
          code: 'card_declined',
          decline_code: 'insufficient_funds',
          message:
            'Your card has insufficient funds (account acct_1Nv0FGQ9RKHgCVdK, ada@example.com).',
        },
      });
      const res = await purchase();
      expect(res.status).toBe(402);
      expect(res.body).toEqual({
        error: 'Your card has insufficient funds (account [redacted], [redacted]).',
        code: 'PAYMENT_FAILED',
        declineCode: 'insufficient_funds',
      });
    });

    it('invalid requests → 400; API, auth and connection failures → 502 with a generic message', async () => {
      stripe.failNext('/v1/payment_intents', {
        status: 400,
        error: {
          type: 'invalid_request_error',
          message: 'Invalid currency: usd',
          param: 'currency',
        },
      });
      expect((await purchase()).body).toEqual({
        error: 'Invalid currency: usd',
        code: 'PAYMENT_REQUEST_INVALID',
        param: 'currency',
      });
      stripe.failNext('/v1/payment_intents', {
        status: 500,
        error: { type: 'api_error', message: 'Internal error on account acct_123 sk_live_abc' },
      });
      const api = await purchase();
      expect(api.status).toBe(502);
      expect(api.body).toEqual({
        error: 'The payment processor is unavailable',
        code: 'PAYMENT_PROVIDER_ERROR',
      });
    });
  });
});
