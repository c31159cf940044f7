import { deliver, stripeEvent } from '../../servers/stripe-events';
import type { StripeEmitted } from '../../servers/stripe-checkout';
import { SmtpTestServer } from '../../servers/smtp-server';
import { StripeTestServer } from '../../servers/stripe-server';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'whsec_test_local';
const BASIC = 'price_basic_test';
const PRO = 'price_pro_test';

describe('Plans through Checkout and the portal, with included credits per paid period', () => {
  let t: TestApp;
  const stripe = new StripeTestServer();
  const smtp = new SmtpTestServer();
  const users: TestUser[] = [];
  const subscriber = async () => {
    const u = await newUser(t);
    users.push(u);
    return u;
  };
  const deliverAll = async (events: StripeEmitted[], order = events.map((_, i) => i)) => {
    const signed = events.map(([type, object]) => stripeEvent(type, object));
    for (const i of order)
      await deliver(t.http, signed[i], { secret: SECRET }).expect(200, { received: true });
  };
  const planOf = async (u: TestUser) =>
    (await t.http.get('/api/credits').set(u.auth).expect(200)).body.plan;
  const planGrants = async (u: TestUser) =>
    t.db.query(
      `SELECT amount, reference FROM credit_transactions
       WHERE "userId" = $1 AND type = 'PLAN_GRANT' ORDER BY "createdAt"`,
      [u.user.id],
    );
  /** Subscribes `u` to `plan` through Checkout, every event delivered; the subscription id. */
  const subscribe = async (u: TestUser, plan: 'BASIC' | 'PRO') => {
    const { body } = await t.http
      .post('/api/billing/checkout')
      .set(u.auth)
      .send({ plan })
      .expect(200);
    const done = stripe.checkout.complete(body.sessionId);
    await deliverAll(done.events);
    return { subscription: done.subscription!.id, invoice: done.invoice! };
  };

  beforeAll(async () => {
    await Promise.all([stripe.start(), smtp.start()]);
    t = await createTestApp({
      ...smtp.env(),
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_PRICE_BASIC: BASIC,
      STRIPE_PRICE_PRO: PRO,
      STRIPE_API_BASE: stripe.url,
      APP_BASE_URL: 'http://app.test',
      PLAN_CREDITS: JSON.stringify({ BASIC: 2000, PRO: 20000 }),
      JOBS_POLL_INTERVAL_SECONDS: '0.5',
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
    await Promise.all([stripe.stop(), smtp.stop()]);
  });

  it('subscribes through a subscription-mode session; each paid invoice grants once', async () => {
    const u = await subscriber();
    const before = (await ledgerOf(t, u.user.id)).credits;
    stripe.reset();
    const res = await t.http
      .post('/api/billing/checkout')
      .set(u.auth)
      .send({ plan: 'PRO' })
      .expect(200);
    const sent = stripe.requests.find((r) => r.path === '/v1/checkout/sessions')!;
    expect(sent.body).toMatchObject({
      mode: 'subscription',
      client_reference_id: u.user.id,
      line_items: [{ price: PRO, quantity: '1' }],
      subscription_data: { metadata: { userId: u.user.id } },
      success_url: 'http://app.test/en/payment/success?session_id={CHECKOUT_SESSION_ID}',
    });
    const done = stripe.checkout.complete(res.body.sessionId);
    // invoice.paid first, then the session and the subscription; the invoice again at the end.
    await deliverAll(done.events, [2, 0, 1, 2]);
    expect(await planOf(u)).toBe('PRO');
    expect(await planGrants(u)).toEqual([
      { amount: 20000, reference: `plan-grant:${done.invoice!.id}` },
    ]);

    const renewal = stripe.checkout.renew(done.subscription!.id);
    await deliverAll(renewal.events, [0, 0]);
    expect((await planGrants(u)).map((g: { amount: number }) => g.amount)).toEqual([20000, 20000]);
    // Unused included credits roll over: both periods' credits are on the balance.
    expect((await ledgerOf(t, u.user.id)).credits).toBe(before + 40000);
  });

  it('an upgrade applies at once; a downgrade when Stripe reports the new price', async () => {
    const u = await subscriber();
    const { subscription } = await subscribe(u, 'BASIC');
    expect(await planOf(u)).toBe('BASIC');

    await deliverAll(stripe.checkout.changePrice(subscription, PRO).events);
    expect(await planOf(u)).toBe('PRO');

    // The portal schedules the downgrade: until the period ends, Stripe still reports PRO.
    const sub = stripe.subscriptions.get(subscription)!;
    await deliverAll([['customer.subscription.updated', { ...sub, schedule: 'sub_sched_1' }]]);
    expect(await planOf(u)).toBe('PRO');
    await deliverAll(stripe.checkout.changePrice(subscription, BASIC).events);
    expect(await planOf(u)).toBe('BASIC');
    // A renewal at the lower price grants that plan's credits.
    await deliverAll(stripe.checkout.renew(subscription).events);
    expect((await planGrants(u)).map((g: { amount: number }) => g.amount)).toEqual([2000, 2000]);
  });

  it('a failed renewal mails the user and keeps the plan; cancellation returns to FREE', async () => {
    const u = await subscriber();
    const { subscription } = await subscribe(u, 'PRO');
    const failed = stripe.checkout.failRenewal(subscription);
    await deliverAll(failed.events, [0, 1, 0]);
    expect(await planOf(u)).toBe('PRO');
    const mail = await smtp.waitForMail(u.user.email, { subject: /subscription payment failed/ });
    expect(mail.text).toContain('9.99 USD');
    expect(mail.link).toBe('http://app.test/en/dashboard/settings');
    expect(await planGrants(u)).toHaveLength(1);

    await deliverAll(stripe.checkout.cancel(subscription).events);
    expect(await planOf(u)).toBe('FREE');
    // The credits already granted stay.
    expect(await planGrants(u)).toHaveLength(1);
  });

  it('opens the customer portal for a customer; 409 with a code for a user without one', async () => {
    const u = await subscriber();
    await t.http
      .post('/api/billing/portal')
      .set(u.auth)
      .expect(409)
      .expect((r) => expect(r.body.code).toBe('NO_PAYMENT_CUSTOMER'));
    await subscribe(u, 'BASIC');
    stripe.reset();
    const res = await t.http
      .post('/api/billing/portal')
      .set(u.auth)
      .set('Accept-Language', 'zh')
      .expect(200);
    expect(res.body.url).toMatch(/\/p\/session\/bps_/);
    const [user] = await t.db.query('SELECT "paymentCustomerId" FROM users WHERE id = $1', [
      u.user.id,
    ]);
    expect(stripe.requests[0].body).toEqual({
      customer: user.paymentCustomerId,
      return_url: 'http://app.test/zh/dashboard/settings',
    });
  });

  it('refuses a bad plan or a second subscription with a code, and changes nothing', async () => {
    const u = await subscriber();
    stripe.reset();
    for (const plan of ['FREE', 'GOLD', 7, undefined])
      await t.http
        .post('/api/billing/checkout')
        .set(u.auth)
        .send({ plan })
        .expect(400)
        .expect((r) => expect(r.body.code).toBe('VALIDATION_FAILED'));
    expect(stripe.requests).toEqual([]);
    await subscribe(u, 'BASIC');
    stripe.reset();
    await t.http
      .post('/api/billing/checkout')
      .set(u.auth)
      .send({ plan: 'PRO' })
      .expect(409)
      .expect((r) => expect(r.body.code).toBe('ALREADY_SUBSCRIBED'));
    expect(stripe.requests).toEqual([]);
    expect(await planOf(u)).toBe('BASIC');
  });
});
