import { deliver, stripeEvent } from '../../servers/stripe-events';
import { StripeTestServer } from '../../servers/stripe-server';
import { chargeOf } from '../../servers/stripe-wallets';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'whsec_test_local';

describe('Payment channels: expired intents and asynchronous refunds of Alipay and WeChat Pay', () => {
  let t: TestApp;
  let admin: TestUser;
  const stripe = new StripeTestServer();
  const send = (event: Record<string, unknown>) => deliver(t.http, event, { secret: SECRET });
  const purchase = (u: TestUser, id: string) =>
    t.http.get(`/api/credits/purchases/${id}`).set(u.auth).expect(200);
  const buy = (u: TestUser, body: Record<string, unknown>) =>
    t.http.post('/api/credits/purchase').set(u.auth).send(body);
  const intentOf = async (purchaseId: string): Promise<string> =>
    (await t.db.query('SELECT "paymentIntentId" FROM purchases WHERE id = $1', [purchaseId]))[0]
      .paymentIntentId;

  beforeAll(async () => {
    await stripe.start();
    t = await createTestApp({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_API_BASE: stripe.url,
      APP_BASE_URL: 'http://app.test',
      CREDITS_PER_CNY: '14',
      PURCHASE_MAX_CNY: '5000',
    });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });

  it('shows a long-pending purchase as canceled when Stripe says its intent is canceled', async () => {
    const u = await newUser(t);
    const res = await buy(u, { amount: 5, credits: 70, paymentMethod: 'wechat_pay' }).expect(200);
    const id = res.body.purchaseId;
    stripe.cancelPaymentIntent(await intentOf(id));
    expect((await purchase(u, id)).body.status).toBe('pending'); // young: not asked
    await t.db.query(
      `UPDATE purchases SET "createdAt" = now() - interval '3 hours' WHERE id = $1`,
      [id],
    );
    expect((await purchase(u, id)).body.status).toBe('canceled');
    // Shown, not written: only webhooks change the record.
    const [row] = await t.db.query('SELECT status FROM purchases WHERE id = $1', [id]);
    expect(row.status).toBe('pending');
    await send(
      stripeEvent('payment_intent.canceled', stripe.paymentIntents.get(await intentOf(id))!),
    ).expect(200);
    expect((await t.db.query('SELECT status FROM purchases WHERE id = $1', [id]))[0].status).toBe(
      'canceled',
    );
  });

  it('an asynchronous WeChat refund takes credits back once, only when it has succeeded', async () => {
    const u = await newUser(t);
    const res = await buy(u, { amount: 20, credits: 280, paymentMethod: 'wechat_pay' }).expect(200);
    const id = res.body.purchaseId;
    const pi = await intentOf(id);
    await send(stripeEvent('payment_intent.succeeded', stripe.succeedPaymentIntent(pi))).expect(
      200,
    );
    expect((await ledgerOf(t, u.user.id)).credits).toBe(380);

    // Half, refunded by an admin: pending at first.
    const half = await t.http
      .post('/api/payment/refund')
      .set(admin.auth)
      .send({ paymentIntentId: pi, amount: 10 })
      .expect(200);
    expect(half.body.refund.status).toBe('pending');
    const refund = stripe.refunds.get(half.body.refund.id)!;
    await send(stripeEvent('charge.refunded', chargeOf(stripe.paymentIntents.get(pi)!))).expect(
      200,
    );
    await send(stripeEvent('charge.refund.updated', { ...refund })).expect(200);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(380);

    const settled = stripeEvent(
      'charge.refund.updated',
      stripe.settleRefund(refund.id, 'succeeded'),
    );
    await Promise.all([
      send(settled),
      send(settled),
      send({ ...settled, id: 'evt_again_' + refund.id }),
    ]);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 240, ledgerSum: 240, entries: 3 });
    expect((await purchase(u, id)).body).toMatchObject({
      status: 'succeeded',
      refundedAmount: 1000,
    });

    // The other half fails at WeChat: nothing more is taken; then it is refunded for real.
    const second = await t.http
      .post('/api/payment/refund')
      .set(admin.auth)
      .send({ paymentIntentId: pi })
      .expect(200);
    const failed = stripe.settleRefund(second.body.refund.id, 'failed');
    await send(stripeEvent('charge.refund.updated', failed)).expect(200);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(240);
    const third = await t.http
      .post('/api/payment/refund')
      .set(admin.auth)
      .send({ paymentIntentId: pi })
      .expect(200);
    await send(
      stripeEvent('charge.refund.updated', stripe.settleRefund(third.body.refund.id, 'succeeded')),
    ).expect(200);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 4 });
    expect((await purchase(u, id)).body).toMatchObject({
      status: 'refunded',
      refundedAmount: 2000,
    });
  });

  it('keeps credits + holds = Σ ledger for every user', async () => {
    const rows = await t.db.query(
      `SELECT u.id, u.credits, COALESCE((SELECT SUM(amount) FROM credit_transactions c WHERE c."userId" = u.id), 0)::int AS ledger
       FROM users u`,
    );
    for (const r of rows) expect(r.credits).toBe(r.ledger);
    expect(rows.length).toBeGreaterThan(2);
  });
});
