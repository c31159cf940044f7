import { StripeTestServer } from '../../servers/stripe-server';
import { freePort } from '../../support/spawn-app';
import { newUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

describe('Payments: refunds, billing history, configuration and the success page', () => {
  let t: TestApp;
  const stripe = new StripeTestServer();

  beforeAll(async () => {
    await stripe.start();
    t = await createTestApp({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: 'whsec_test_local',
      STRIPE_PRICE_BASIC: 'price_basic_test',
      STRIPE_API_BASE: stripe.url,
    });
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });
  beforeEach(() => stripe.reset());

  /** A paid credit purchase of `amount` USD, as the processor would hold it. */
  async function paidIntent(amount = 10): Promise<string> {
    const buyer = await newUser(t);
    await t.http
      .post('/api/credits/purchase')
      .set(buyer.auth)
      .send({ amount, credits: amount * 100 })
      .expect(200);
    const pi = [...stripe.paymentIntents.values()].pop()!;
    return stripe.succeedPaymentIntent(pi.id).id;
  }

  describe('POST /api/payment/refund', () => {
    it('is for admins: 401 without a session, 403 for a user, nothing sent', async () => {
      const user = await newUser(t);
      const body = { paymentIntentId: 'pi_123' };
      await t.http.post('/api/payment/refund').send(body).expect(401);
      const res = await t.http.post('/api/payment/refund').set(user.auth).send(body).expect(403);
      expect(res.body).toEqual({ error: expect.any(String), code: 'FORBIDDEN' });
      expect(stripe.requests).toHaveLength(0);
    });

    it('refunds in full without amount, and amount × 100 with one', async () => {
      const admin = await newUser(t, { role: 'ADMIN' });
      const pi = await paidIntent(20);
      const partial = await t.http
        .post('/api/payment/refund')
        .set(admin.auth)
        .send({ paymentIntentId: pi, amount: 5.55 })
        .expect(200);
      expect(partial.body).toEqual({
        refund: {
          id: expect.stringMatching(/^re_/),
          object: 'refund',
          amount: 555,
          currency: 'usd',
          status: 'succeeded',
          payment_intent: pi,
          created: expect.any(Number),
        },
      });
      const rest = await t.http
        .post('/api/payment/refund')
        .set(admin.auth)
        .send({ paymentIntentId: pi })
        .expect(200);
      expect(rest.body.refund.amount).toBe(2000 - 555);
      const sent = stripe.requests.filter((r) => r.path === '/v1/refunds');
      expect(sent.map((r) => r.body)).toEqual([
        { payment_intent: pi, amount: '555', metadata: { requestedBy: admin.user.id } },
        { payment_intent: pi, metadata: { requestedBy: admin.user.id } },
      ]);
      expect(sent.every((r) => r.idempotencyKey && r.stripeVersion === '2024-06-20')).toBe(true);
    });

    it('passes on processor refusals as 400 and validates the body', async () => {
      const admin = await newUser(t, { role: 'ADMIN' });
      const unknown = await t.http
        .post('/api/payment/refund')
        .set(admin.auth)
        .send({ paymentIntentId: 'pi_doesnotexist' })
        .expect(400);
      expect(unknown.body).toEqual(
        expect.objectContaining({ code: 'PAYMENT_REQUEST_INVALID', param: 'payment_intent' }),
      );
      const pi = await paidIntent(1);
      const tooMuch = await t.http
        .post('/api/payment/refund')
        .set(admin.auth)
        .send({ paymentIntentId: pi, amount: 2 })
        .expect(400);
      expect(tooMuch.body.code).toBe('PAYMENT_REQUEST_INVALID');
      stripe.reset();
      for (const body of [{}, { paymentIntentId: 'ch_123' }, { paymentIntentId: pi, amount: 0 }])
        await t.http.post('/api/payment/refund').set(admin.auth).send(body).expect(400);
      expect(stripe.requests).toHaveLength(0);
    });
  });

  describe('GET /api/billing/history', () => {
    it('is empty without a payment customer, without calling the processor', async () => {
      const u = await newUser(t);
      const res = await t.http.get('/api/billing/history').set(u.auth).expect(200);
      expect(res.body).toEqual({ invoices: [] });
      expect(stripe.requests).toHaveLength(0);
      await t.http.get('/api/billing/history').expect(401);
    });

    it("lists at most 10 of the user's invoices in the processor's order", async () => {
      const u = await newUser(t);
      await t.http
        .post('/api/payment/create-subscription')
        .set(u.auth)
        .send({ priceId: 'price_basic_test' })
        .expect(200);
      const [customer] = [...stripe.customers.values()].filter((c) => c.email === u.user.email);
      for (let i = 0; i < 11; i++) stripe.addInvoice(customer.id, { created: 1700000000 + i });
      stripe.addInvoice('cus_someone_else');
      stripe.reset();

      const res = await t.http.get('/api/billing/history').set(u.auth).expect(200);
      const expected = stripe.invoices.get(customer.id)!.slice(0, 10);
      expect(res.body.invoices).toHaveLength(10);
      expect(res.body.invoices).toEqual(
        expected.map((i) => ({
          id: i.id,
          number: i.number,
          amount_paid: i.amount_paid,
          currency: 'usd',
          created: i.created,
          status: i.status,
          hosted_invoice_url: i.hosted_invoice_url,
        })),
      );
      expect(JSON.stringify(res.body)).not.toContain('secret@example.com');
      expect(stripe.requests[0].query).toEqual({ customer: customer.id, limit: '10' });
    });

    it('answers 502 when the processor fails', async () => {
      const u = await newUser(t);
      await t.db.query(`UPDATE users SET "paymentCustomerId" = 'cus_x' WHERE id = $1`, [u.user.id]);
      stripe.failNext('/v1/invoices', { status: 500, error: { type: 'api_error', message: 'x' } });
      const res = await t.http.get('/api/billing/history').set(u.auth).expect(502);
      expect(res.body).toEqual({ error: expect.any(String), code: 'PAYMENT_PROVIDER_ERROR' });
    });
  });

  describe('GET /{locale}/payment/success', () => {
    it('answers a small HTML page in en and zh', async () => {
      const en = await t.http.get('/en/payment/success').expect(200);
      expect(en.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(en.text).toContain('<html lang="en">');
      expect(en.text).toContain('Payment confirmed');
      expect(en.text).toContain('credits');
      const zh = await t.http.get('/zh/payment/success').expect(200);
      expect(zh.text).toContain('<html lang="zh">');
      expect(zh.text).toContain('支付成功');
    });

    it('redirects the unprefixed path by Accept-Language, keeping the query', async () => {
      const plain = await t.http.get('/payment/success').expect(302);
      expect(plain.headers.location).toBe('/en/payment/success');
      const zh = await t.http
        .get('/payment/success?payment_intent=pi_1&redirect_status=succeeded')
        .set('Accept-Language', 'zh-CN,zh;q=0.9,en;q=0.8')
        .expect(302);
      expect(zh.headers.location).toBe(
        '/zh/payment/success?payment_intent=pi_1&redirect_status=succeeded',
      );
    });

    it('is 404 for a locale outside en and zh', async () => {
      const res = await t.http.get('/fr/payment/success').expect(404);
      expect(res.body.code).toBe('NOT_FOUND');
      expect(res.headers['content-type']).toContain('application/json');
      await t.http.get('/api/payment/success').expect(404);
    });
  });
});

describe('Payments without Stripe configured, or unreachable', () => {
  it('answers 503 PAYMENTS_NOT_CONFIGURED on payment routes while the rest runs', async () => {
    const t = await createTestApp({ STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '' });
    try {
      const admin = await newUser(t, { role: 'ADMIN' });
      const calls = [
        t.http.get('/api/payment/config'),
        t.http.post('/api/payment/create-subscription').set(admin.auth).send({ priceId: 'p' }),
        t.http.post('/api/payment/create-payment-intent').set(admin.auth).send({ amount: 5 }),
        t.http.post('/api/credits/purchase').set(admin.auth).send({ amount: 5, credits: 5 }),
        t.http.post('/api/payment/refund').set(admin.auth).send({ paymentIntentId: 'pi_1' }),
        t.http.get('/api/billing/history').set(admin.auth),
        t.http.post('/api/webhooks/payment').set('Stripe-Signature', 't=1,v1=x').send({}),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ error: expect.any(String), code: 'PAYMENTS_NOT_CONFIGURED' });
      }
      await t.http.get('/health/live').expect(200);
      await t.http.get('/api/credits').set(admin.auth).expect(200);
      await t.http.get('/en/payment/success').expect(200);
    } finally {
      await t.close();
    }
  });

  it('answers 502 when the processor cannot be reached', async () => {
    const t = await createTestApp({
      STRIPE_SECRET_KEY: 'sk_test_local',
      STRIPE_API_BASE: `http://127.0.0.1:${await freePort()}`,
    });
    try {
      const u = await newUser(t);
      const res = await t.http
        .post('/api/credits/purchase')
        .set(u.auth)
        .send({ amount: 5, credits: 5 })
        .expect(502);
      expect(res.body).toEqual({ error: expect.any(String), code: 'PAYMENT_PROVIDER_ERROR' });
    } finally {
      await t.close();
    }
  });

  it('answers 502, not the processor message, for a wrong secret key', async () => {
    const stripe = await new StripeTestServer('sk_test_other').start();
    const t = await createTestApp({
      STRIPE_SECRET_KEY: 'sk_test_wrong',
      STRIPE_API_BASE: stripe.url,
    });
    try {
      const u = await newUser(t);
      const res = await t.http
        .post('/api/payment/create-payment-intent')
        .set(u.auth)
        .send({ amount: 5 })
        .expect(502);
      expect(JSON.stringify(res.body)).not.toContain('sk_');
    } finally {
      await t.close();
      await stripe.stop();
    }
  });
});
