import { deliver, stripeEvent } from '../../servers/stripe-events';
import { StripeTestServer } from '../../servers/stripe-server';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'whsec_test_local';

describe('Payment channels: card, Alipay and WeChat Pay purchases through Stripe', () => {
  let t: TestApp;
  const stripe = new StripeTestServer();
  const send = (event: Record<string, unknown>) => deliver(t.http, event, { secret: SECRET });
  const lastRequest = (path: string) => stripe.requests.filter((r) => r.path === path).pop()!;
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
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });

  it('WeChat Pay: 19.99 CNY is 1999 fen, the QR data comes back, and the webhook turns the purchase succeeded', async () => {
    const u = await newUser(t);
    const refused = await buy(u, { amount: 19.99, credits: 280, paymentMethod: 'wechat_pay' });
    expect(refused.status).toBe(400);
    expect(refused.body.maxCredits).toBe(279); // floor(19.99 × 14)

    const res = await buy(u, { amount: 19.99, credits: 279, paymentMethod: 'wechat_pay' });
    expect(res.status).toBe(200);
    const sent = lastRequest('/v1/payment_intents').body;
    expect(sent).toMatchObject({
      amount: '1999',
      currency: 'cny',
      payment_method_types: ['wechat_pay'],
      confirm: 'true',
      payment_method_data: { type: 'wechat_pay' },
      payment_method_options: { wechat_pay: { client: 'web' } },
      metadata: { userId: u.user.id, credits: '279', type: 'credit_purchase' },
    });
    expect(res.body).toEqual({
      clientSecret: expect.stringMatching(/^pi_\w+_secret_/),
      purchaseId: expect.any(String),
      status: 'pending',
      nextAction: {
        type: 'wechat_pay_display_qr_code',
        image_data_url: expect.stringMatching(/^data:image\/png;base64,/),
        data: expect.stringMatching(/^weixin:\/\//),
      },
    });
    const id = res.body.purchaseId;
    const pi = await intentOf(id);
    expect((await purchase(u, id)).body).toMatchObject({
      id,
      method: 'wechat_pay',
      currency: 'cny',
      amount: 1999,
      credits: 279,
      status: 'pending',
    });

    // The customer scans; WeChat reports later: processing, then succeeded.
    await send(stripeEvent('payment_intent.processing', stripe.processPaymentIntent(pi))).expect(
      200,
    );
    expect((await purchase(u, id)).body.status).toBe('processing');
    const succeeded = stripeEvent('payment_intent.succeeded', stripe.succeedPaymentIntent(pi));
    await send(succeeded).expect(200);
    expect((await purchase(u, id)).body.status).toBe('succeeded');
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 379, ledgerSum: 379, entries: 2 });

    // A late `processing` does not undo it; the list shows it.
    await send(
      stripeEvent('payment_intent.processing', {
        ...stripe.paymentIntents.get(pi)!,
        status: 'processing',
      }),
    ).expect(200);
    const list = await t.http.get('/api/credits/purchases').set(u.auth).expect(200);
    expect(list.body.data.map((p: { status: string }) => p.status)).toEqual(['succeeded']);
  });

  it('the same succeeded event ten times in parallel grants once', async () => {
    const u = await newUser(t);
    const res = await buy(u, { amount: 10, credits: 140, paymentMethod: 'wechat_pay' }).expect(200);
    const pi = await intentOf(res.body.purchaseId);
    const event = stripeEvent('payment_intent.succeeded', stripe.succeedPaymentIntent(pi));
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(event)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 240, ledgerSum: 240, entries: 2 });
    expect((await purchase(u, res.body.purchaseId)).body.status).toBe('succeeded');
  });

  it('a failed WeChat payment grants nothing and the purchase shows failed', async () => {
    const u = await newUser(t);
    const res = await buy(u, { amount: 5, credits: 70, paymentMethod: 'wechat_pay' }).expect(200);
    const pi = await intentOf(res.body.purchaseId);
    const failed = stripe.failPaymentIntent(pi);
    expect(failed.last_payment_error.payment_method.type).toBe('wechat_pay');
    await send(stripeEvent('payment_intent.payment_failed', failed)).expect(200);
    expect((await purchase(u, res.body.purchaseId)).body.status).toBe('failed');
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
  });

  it('Alipay: redirect, return to the Chinese success page, pending until the webhook, then succeeded', async () => {
    const u = await newUser(t);
    const res = await buy(u, { amount: 50, credits: 700, paymentMethod: 'alipay' })
      .set('Accept-Language', 'zh-CN,zh;q=0.9')
      .expect(200);
    const id = res.body.purchaseId;
    const sent = lastRequest('/v1/payment_intents').body;
    expect(sent).toMatchObject({
      amount: '5000',
      currency: 'cny',
      payment_method_types: ['alipay'],
      confirm: 'true',
      return_url: `http://app.test/zh/payment/success?purchase=${id}`,
    });
    expect(res.body.nextAction).toEqual({
      type: 'alipay_handle_redirect',
      url: expect.stringContaining('/alipay/authorize/'),
    });

    // The browser follows the redirect; Alipay sends it back to our page.
    const authorised = await fetch(res.body.nextAction.url, { redirect: 'manual' });
    expect(authorised.status).toBe(302);
    const back = new URL(authorised.headers.get('location')!);
    expect(back.origin + back.pathname).toBe('http://app.test/zh/payment/success');
    expect(back.searchParams.get('purchase')).toBe(id);
    expect(back.searchParams.get('redirect_status')).toBe('succeeded');

    const before = await t.http.get(back.pathname + back.search).expect(200);
    expect(before.text).toContain('<html lang="zh">');
    expect(before.text).toContain('等待付款确认');
    expect(before.text).toContain('http-equiv="refresh"');

    const pi = await intentOf(id);
    await send(stripeEvent('payment_intent.succeeded', stripe.paymentIntents.get(pi)!)).expect(200);
    const after = await t.http.get(back.pathname + back.search).expect(200);
    expect(after.text).toContain('支付成功');
    expect(after.text).toContain('700 积分');
    expect(after.text).not.toContain(u.user.email);
    const en = await t.http.get(`/en/payment/success?purchase=${id}`).expect(200);
    expect(en.text).toContain('700 credits have been added');
    await t.http
      .get('/en/payment/success?purchase=00000000-0000-4000-8000-000000000000')
      .expect(404);
    await t.http.get('/en/payment/success?purchase=nope').expect(404);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(800);
  });

  it('Alipay declined: the customer returns with redirect_status failed and the page says so', async () => {
    const u = await newUser(t);
    const res = await buy(u, { amount: 8, credits: 112, paymentMethod: 'alipay' }).expect(200);
    const authorised = await fetch(`${res.body.nextAction.url}?outcome=fail`, {
      redirect: 'manual',
    });
    const back = new URL(authorised.headers.get('location')!);
    expect(back.pathname).toBe('/en/payment/success');
    expect(back.searchParams.get('redirect_status')).toBe('failed');
    const pi = stripe.paymentIntents.get(await intentOf(res.body.purchaseId))!;
    expect(pi.status).toBe('requires_payment_method');
    await send(stripeEvent('payment_intent.payment_failed', pi)).expect(200);
    const page = await t.http.get(back.pathname + back.search).expect(200);
    expect(page.text).toContain('Payment not completed');
    expect((await ledgerOf(t, u.user.id)).credits).toBe(100);
    // The redirect page serves an intent once.
    expect((await fetch(res.body.nextAction.url, { redirect: 'manual' })).status).toBe(404);
  });

  it('refuses what a method or currency does not allow', async () => {
    const u = await newUser(t);
    const cases: [Record<string, unknown>, number][] = [
      [{ amount: 10, credits: 100, paymentMethod: 'alipay', currency: 'usd' }, 400],
      [{ amount: 5000.01, credits: 1, paymentMethod: 'wechat_pay' }, 400],
      [{ amount: 10, credits: 100, paymentMethod: 'paypal' }, 400],
      [{ amount: 10, credits: 100, currency: 'eur' }, 400],
      [{ amount: 10.001, credits: 100, paymentMethod: 'alipay' }, 400],
    ];
    for (const [body, status] of cases) expect((await buy(u, body)).status).toBe(status);

    // Card takes cny too, confirmed by Stripe.js: no next action, credits per CNY.
    const card = await buy(u, { amount: 100, credits: 1400, currency: 'cny' }).expect(200);
    expect(card.body.nextAction).toBeNull();
    expect(lastRequest('/v1/payment_intents').body).toMatchObject({
      amount: '10000',
      currency: 'cny',
      payment_method_types: ['card'],
    });
    expect(lastRequest('/v1/payment_intents').body.confirm).toBeUndefined();
    const usd = await buy(u, { amount: 1, credits: 100 }).expect(200);
    expect((await purchase(u, usd.body.purchaseId)).body).toMatchObject({
      method: 'card',
      currency: 'usd',
      amount: 100,
    });
  });

  it('lists purchases newest first, paginated, and hides other users’ purchases', async () => {
    const u = await newUser(t);
    const other = await newUser(t);
    const ids: string[] = [];
    for (const amount of [1, 2, 3])
      ids.push((await buy(u, { amount, credits: amount * 100 }).expect(200)).body.purchaseId);
    const first = await t.http.get('/api/credits/purchases?limit=2').set(u.auth).expect(200);
    expect(first.body.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
    const second = await t.http
      .get(`/api/credits/purchases?limit=2&cursor=${first.body.nextCursor}`)
      .set(u.auth)
      .expect(200);
    expect(second.body).toEqual({
      data: [expect.objectContaining({ id: ids[0] })],
      nextCursor: null,
    });
    const foreign = await t.http
      .get(`/api/credits/purchases/${ids[0]}`)
      .set(other.auth)
      .expect(404);
    expect(foreign.body.code).toBe('NOT_FOUND');
  });

  it('keeps credits + holds = Σ ledger for every user', async () => {
    const rows = await t.db.query(
      `SELECT u.id, u.credits, COALESCE((SELECT SUM(amount) FROM credit_transactions c WHERE c."userId" = u.id), 0)::int AS ledger
       FROM users u`,
    );
    for (const r of rows) expect(r.credits).toBe(r.ledger);
    expect(rows.length).toBeGreaterThan(5);
  });
});
