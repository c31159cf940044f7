import { deliver, stripeEvent } from '../../servers/stripe-events';
import type { StripeEmitted } from '../../servers/stripe-checkout';
import { StripeTestServer } from '../../servers/stripe-server';
import { ledgerOf, newTeam, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'whsec_test_local';
const PACKS = [
  { id: 'starter', credits: 1000, amount: 10, currency: 'usd' },
  { id: 'yuan', credits: 700, amount: 49.9, currency: 'cny' },
];

describe('Checkout for credit packs: granted once, whichever event comes first or twice', () => {
  let t: TestApp;
  const stripe = new StripeTestServer();
  const users: TestUser[] = [];
  const buyer = async () => {
    const u = await newUser(t);
    users.push(u);
    return u;
  };
  /** Signed events, each with its own id, delivered in `order` (an index may repeat). */
  const deliverAll = async (events: StripeEmitted[], order: number[]) => {
    const signed = events.map(([type, object]) => stripeEvent(type, object));
    for (const i of order)
      await deliver(t.http, signed[i], { secret: SECRET }).expect(200, { received: true });
  };
  const checkout = (u: TestUser, body: Record<string, unknown>) =>
    t.http.post('/api/credits/checkout').set(u.auth).send(body);
  const purchaseOf = async (sessionId: string) =>
    (
      await t.db.query(
        `SELECT status, method, "paymentIntentId", credits, amount, currency, "teamId"
         FROM purchases WHERE "checkoutSessionId" = $1`,
        [sessionId],
      )
    )[0];
  const purchaseEntries = async (userId: string) =>
    t.db.query(
      `SELECT amount, reference FROM credit_transactions WHERE "userId" = $1 AND type = 'PURCHASE'`,
      [userId],
    );

  beforeAll(async () => {
    await stripe.start();
    t = await createTestApp({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_API_BASE: stripe.url,
      APP_BASE_URL: 'http://app.test',
      CREDIT_PACKS: JSON.stringify(PACKS),
    });
  });
  afterEach(async () => {
    // The ledger equals the balances after every test.
    for (const u of users) {
      const l = await ledgerOf(t, u.user.id);
      expect(l.credits).toBe(l.ledgerSum);
    }
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });

  it('lists the packs and creates a payment-mode session with the purchase metadata', async () => {
    const u = await buyer();
    const packs = await t.http.get('/api/credits/packs').set(u.auth).expect(200);
    expect(packs.body.packs).toEqual([PACKS[1], PACKS[0]]);

    stripe.reset();
    const res = await checkout(u, { packId: 'starter', saveCard: true })
      .set('Accept-Language', 'zh')
      .expect(200);
    expect(res.body).toEqual({
      url: expect.stringContaining('/checkout/pay/'),
      sessionId: expect.stringMatching(/^cs_test_/),
    });
    const sent = stripe.requests.find((r) => r.path === '/v1/checkout/sessions')!;
    expect(sent.body).toMatchObject({
      mode: 'payment',
      client_reference_id: u.user.id,
      customer: expect.stringMatching(/^cus_/),
      success_url: 'http://app.test/zh/payment/success?session_id={CHECKOUT_SESSION_ID}',
      line_items: [{ quantity: '1', price_data: { currency: 'usd', unit_amount: '1000' } }],
      payment_method_types: ['card'],
      metadata: { userId: u.user.id, credits: '1000', type: 'credit_purchase', packId: 'starter' },
      payment_intent_data: {
        setup_future_usage: 'off_session',
        metadata: { userId: u.user.id, credits: '1000', type: 'credit_purchase' },
      },
    });
    expect(sent.idempotencyKey).toMatch(/^credit-checkout:/);
    expect(await purchaseOf(res.body.sessionId)).toMatchObject({
      status: 'pending',
      method: 'checkout',
      paymentIntentId: null,
      credits: 1000,
      amount: 1000,
    });
  });

  it.each([
    ['completed, then the intent', [0, 1]],
    ['the intent, then completed', [1, 0]],
    ['each twice, interleaved', [1, 0, 1, 0]],
  ])('a card payment grants once: %s', async (_name, order) => {
    const u = await buyer();
    const before = (await ledgerOf(t, u.user.id)).credits;
    const { body } = await checkout(u, { packId: 'starter' }).expect(200);
    const paid = stripe.checkout.complete(body.sessionId);
    await deliverAll(paid.events, order);

    expect((await ledgerOf(t, u.user.id)).credits).toBe(before + 1000);
    expect(await purchaseEntries(u.user.id)).toEqual([
      { amount: 1000, reference: paid.paymentIntent!.id },
    ]);
    expect(await purchaseOf(body.sessionId)).toMatchObject({
      status: 'succeeded',
      method: 'card',
      paymentIntentId: paid.paymentIntent!.id,
    });
    const page = await t.http.get(`/en/payment/success?session_id=${body.sessionId}`).expect(200);
    expect(page.text).toContain('data-status="succeeded"');
  });

  it.each([
    ['async succeeded, then the intent', [0, 1]],
    ['the intent, then async succeeded', [1, 0]],
    ['the intent twice, then async succeeded twice', [1, 1, 0, 0]],
  ])('an Alipay payment confirmed later grants once: %s', async (_name, order) => {
    const u = await buyer();
    const before = (await ledgerOf(t, u.user.id)).credits;
    const { body } = await checkout(u, { packId: 'yuan' }).expect(200);
    const sent = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1)!;
    expect(sent.body.payment_method_types).toEqual(['card', 'alipay', 'wechat_pay']);

    const started = stripe.checkout.complete(body.sessionId, { method: 'alipay', async: true });
    await deliverAll(started.events, [0, 0]);
    expect(await purchaseOf(body.sessionId)).toMatchObject({
      status: 'processing',
      method: 'alipay',
    });
    expect((await ledgerOf(t, u.user.id)).credits).toBe(before);

    const settled = stripe.checkout.settle(body.sessionId, 'succeeded');
    await deliverAll(settled.events, order);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(before + 700);
    expect(await purchaseEntries(u.user.id)).toHaveLength(1);
    expect(await purchaseOf(body.sessionId)).toMatchObject({
      status: 'succeeded',
      method: 'alipay',
      currency: 'cny',
      amount: 4990,
    });
  });

  it('an Alipay payment paid at once grants once, completed delivered twice', async () => {
    const u = await buyer();
    const before = (await ledgerOf(t, u.user.id)).credits;
    const { body } = await checkout(u, { packId: 'yuan' }).expect(200);
    const paid = stripe.checkout.complete(body.sessionId, { method: 'alipay' });
    await deliverAll(paid.events, [0, 0, 1]);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(before + 700);
    expect(await purchaseOf(body.sessionId)).toMatchObject({
      status: 'succeeded',
      method: 'alipay',
    });
  });

  it('async_payment_failed marks the purchase failed and grants nothing', async () => {
    const u = await buyer();
    const before = (await ledgerOf(t, u.user.id)).credits;
    const { body } = await checkout(u, { packId: 'yuan' }).expect(200);
    await deliverAll(
      stripe.checkout.complete(body.sessionId, { method: 'wechat_pay', async: true }).events,
      [0],
    );
    await deliverAll(stripe.checkout.settle(body.sessionId, 'failed').events, [0, 1]);
    expect(await purchaseOf(body.sessionId)).toMatchObject({ status: 'failed' });
    expect((await ledgerOf(t, u.user.id)).credits).toBe(before);
    expect(await purchaseEntries(u.user.id)).toEqual([]);
  });

  it("buys for a team's pool with the purchase's rule: OWNER or ADMIN, 403 for a MEMBER", async () => {
    const owner = await buyer();
    const member = await buyer();
    const team = await newTeam(t, owner, { members: [[member, 'MEMBER']] });
    await checkout(member, { packId: 'starter', teamId: team.id })
      .expect(403)
      .expect((r) => expect(r.body.code).toBeDefined());
    const { body } = await checkout(owner, { packId: 'starter', teamId: team.id }).expect(200);
    await deliverAll(stripe.checkout.complete(body.sessionId).events, [1, 0]);
    const [pool] = await t.db.query('SELECT credits FROM teams WHERE id = $1', [team.id]);
    expect(pool.credits).toBe(1000);
    expect(await purchaseOf(body.sessionId)).toMatchObject({
      teamId: team.id,
      status: 'succeeded',
    });
  });

  it('refuses bad input with a code and changes nothing', async () => {
    const u = await buyer();
    stripe.reset();
    const purchases = async () =>
      (
        await t.db.query('SELECT count(*)::int AS n FROM purchases WHERE "userId" = $1', [
          u.user.id,
        ])
      )[0].n;
    await checkout(u, { packId: 'gold' })
      .expect(400)
      .expect((r) => expect(r.body.code).toBe('UNKNOWN_PACK'));
    await checkout(u, { packId: 'starter', saveCard: 'yes' })
      .expect(400)
      .expect((r) => expect(r.body.code).toBe('VALIDATION_FAILED'));
    await checkout(u, { packId: 'starter', credits: 1e9 })
      .expect(400)
      .expect((r) => expect(r.body.code).toBe('VALIDATION_FAILED'));
    expect(stripe.requests).toEqual([]);
    expect(await purchases()).toBe(0);
  });

  it('admins override, add, take off sale and reset packs; others may not', async () => {
    const admin = await newUser(t, { role: 'ADMIN' });
    const u = await buyer();
    await t.http
      .put('/api/admin/credit-packs/starter')
      .set(u.auth)
      .send({ credits: 1, amount: 1, currency: 'usd' })
      .expect(403);
    await t.http
      .put('/api/admin/credit-packs/starter')
      .set(admin.auth)
      .send({ credits: 1200, amount: 10, currency: 'usd' })
      .expect(200, {
        id: 'starter',
        credits: 1200,
        amount: 10,
        currency: 'usd',
        source: 'admin',
        active: true,
      });
    await t.http
      .put('/api/admin/credit-packs/yuan')
      .set(admin.auth)
      .send({ credits: 700, amount: 49.9, currency: 'cny', active: false })
      .expect(200);
    await t.http
      .put('/api/admin/credit-packs/big')
      .set(admin.auth)
      .send({ credits: 50000, amount: 400, currency: 'usd' })
      .expect(200);
    await t.http
      .put('/api/admin/credit-packs/bad')
      .set(admin.auth)
      .send({ credits: 0, amount: 0.001, currency: 'eur' })
      .expect(400)
      .expect((r) => expect(r.body.code).toBe('VALIDATION_FAILED'));
    const onSale = await t.http.get('/api/credits/packs').set(u.auth).expect(200);
    expect(
      onSale.body.packs.map((p: { id: string; credits: number }) => [p.id, p.credits]),
    ).toEqual([
      ['starter', 1200],
      ['big', 50000],
    ]);
    await checkout(u, { packId: 'yuan' })
      .expect(400)
      .expect((r) => expect(r.body.code).toBe('UNKNOWN_PACK'));

    await t.http.delete('/api/admin/credit-packs/starter').set(admin.auth).expect(200);
    await t.http.delete('/api/admin/credit-packs/yuan').set(admin.auth).expect(200);
    await t.http.delete('/api/admin/credit-packs/big').set(admin.auth).expect(200);
    await t.http.delete('/api/admin/credit-packs/big').set(admin.auth).expect(404);
    const all = await t.http.get('/api/admin/credit-packs').set(admin.auth).expect(200);
    expect(all.body.packs).toEqual(
      [...PACKS].reverse().map((p) => ({ ...p, source: 'env', active: true })),
    );
  });
});
