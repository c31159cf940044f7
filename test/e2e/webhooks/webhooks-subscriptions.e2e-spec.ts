import {
  checkoutSessionObject,
  deliver,
  rid,
  stripeEvent,
  subscriptionObject,
} from '../../servers/stripe-events';
import { StripeTestServer } from '../../servers/stripe-server';
import { newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'whsec_test_local';
const BASIC = 'price_basic_test';
const PRO = 'price_pro_test';

describe('Webhooks: subscriptions keep the plan right, in any delivery order', () => {
  let t: TestApp;
  const stripe = new StripeTestServer();
  const now = () => Math.floor(Date.now() / 1000);
  const send = (type: string, object: Record<string, any>, created?: number) =>
    deliver(t.http, stripeEvent(type, object, { created }), { secret: SECRET });
  const planOf = async (u: TestUser) => {
    const res = await t.http.get('/api/credits').set(u.auth).expect(200);
    return { plan: res.body.plan, dailyLimit: res.body.dailyLimit };
  };
  const rowOf = async (subscriptionId: string) =>
    (
      await t.db.query(
        `SELECT "userId", "customerId", "priceId", plan, status FROM subscriptions
         WHERE "processorId" = $1`,
        [subscriptionId],
      )
    )[0];
  /** A subscription of `u` by metadata, with a customer the service has not seen yet. */
  const subOf = (u: TestUser, priceId: string, status: string, id?: string) =>
    subscriptionObject({
      id,
      customer: `cus_${u.user.id.slice(0, 8)}`,
      priceId,
      status,
      metadata: { userId: u.user.id },
    });

  beforeAll(async () => {
    await stripe.start();
    t = await createTestApp({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_PRICE_BASIC: BASIC,
      STRIPE_PRICE_PRO: PRO,
      STRIPE_API_BASE: stripe.url,
    });
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });

  it('subscribes to BASIC: plan and daily limit follow created → active → deleted', async () => {
    const u = await newUser(t);
    const res = await t.http
      .post('/api/payment/create-subscription')
      .set(u.auth)
      .send({ priceId: BASIC })
      .expect(200);
    const sub = stripe.subscriptions.get(res.body.subscriptionId)!;
    const t0 = now();

    await send('customer.subscription.created', sub, t0).expect(200, { received: true });
    expect(await planOf(u)).toEqual({ plan: 'FREE', dailyLimit: 100 });
    expect(await rowOf(sub.id)).toEqual({
      userId: u.user.id,
      customerId: sub.customer,
      priceId: BASIC,
      plan: 'BASIC',
      status: 'incomplete',
    });

    await send('customer.subscription.updated', { ...sub, status: 'active' }, t0 + 1).expect(200);
    expect(await planOf(u)).toEqual({ plan: 'BASIC', dailyLimit: 1000 });

    await send('customer.subscription.deleted', { ...sub, status: 'canceled' }, t0 + 2).expect(200);
    expect(await planOf(u)).toEqual({ plan: 'FREE', dailyLimit: 100 });
    expect((await rowOf(sub.id)).status).toBe('canceled');
  });

  it('ends FREE when deleted arrives before created and updated', async () => {
    const u = await newUser(t);
    const sub = subOf(u, BASIC, 'active');
    const t0 = now();
    await send('customer.subscription.deleted', { ...sub, status: 'canceled' }, t0).expect(200);
    await send('customer.subscription.updated', sub, t0 - 5).expect(200);
    await send('customer.subscription.created', { ...sub, status: 'incomplete' }, t0 - 10).expect(
      200,
    );
    expect(await planOf(u)).toEqual({ plan: 'FREE', dailyLimit: 100 });
    expect((await rowOf(sub.id)).status).toBe('canceled');
    // Found through metadata.userId, the customer is now linked to the user.
    const [row] = await t.db.query('SELECT "paymentCustomerId" FROM users WHERE id = $1', [
      u.user.id,
    ]);
    expect(row.paymentCustomerId).toBe(sub.customer);
  });

  it('ends in the newest state when an older event comes late, or all come at once', async () => {
    const u = await newUser(t);
    const sub = subOf(u, PRO, 'active');
    const t0 = now();
    await send('customer.subscription.updated', sub, t0).expect(200);
    await send('customer.subscription.created', { ...sub, status: 'incomplete' }, t0 - 5).expect(
      200,
    );
    expect(await planOf(u)).toEqual({ plan: 'PRO', dailyLimit: 10000 });

    const other = await newUser(t);
    const sub2 = subOf(other, BASIC, 'active');
    const results = await Promise.all([
      send('customer.subscription.created', { ...sub2, status: 'incomplete' }, t0 - 3),
      send('customer.subscription.updated', { ...sub2, status: 'past_due' }, t0 - 2),
      send('customer.subscription.updated', sub2, t0 - 1),
      send('customer.subscription.updated', { ...sub2, status: 'incomplete' }, t0 - 3),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await rowOf(sub2.id)).status).toBe('active');
    expect(await planOf(other)).toEqual({ plan: 'BASIC', dailyLimit: 1000 });
  });

  it('takes the best active plan across subscriptions', async () => {
    const u = await newUser(t);
    const basic = subOf(u, BASIC, 'active');
    const pro = { ...subOf(u, PRO, 'trialing'), customer: basic.customer };
    await send('customer.subscription.created', basic).expect(200);
    await send('customer.subscription.created', pro).expect(200);
    expect((await planOf(u)).plan).toBe('PRO');
    await send('customer.subscription.deleted', { ...pro, status: 'canceled' }, now() + 1);
    expect((await planOf(u)).plan).toBe('BASIC');
    await send('customer.subscription.updated', { ...basic, status: 'unpaid' }, now() + 1);
    expect((await planOf(u)).plan).toBe('FREE');
  });

  it('stores a price that is not a plan without granting one', async () => {
    const u = await newUser(t);
    const sub = subOf(u, 'price_unknown', 'active');
    await send('customer.subscription.created', sub).expect(200);
    expect(await rowOf(sub.id)).toEqual(expect.objectContaining({ plan: null, status: 'active' }));
    expect((await planOf(u)).plan).toBe('FREE');
  });

  it('acknowledges and records the subscription of an unknown user, once', async () => {
    const orphan = subscriptionObject({ customer: 'cus_nobody', priceId: BASIC, status: 'active' });
    const ghost = { ...orphan, id: rid('sub'), metadata: { userId: 'not-a-uuid' } };
    for (const sub of [orphan, ghost])
      await send('customer.subscription.created', sub).expect(200, { received: true });
    expect(await rowOf(orphan.id)).toBeUndefined();
    expect(await rowOf(ghost.id)).toBeUndefined();
  });

  it('links customer and subscription on checkout.session.completed, fetching the subscription', async () => {
    const u = await newUser(t);
    const sub = subscriptionObject({
      customer: 'cus_checkout_sub',
      priceId: PRO,
      status: 'active',
    });
    stripe.subscriptions.set(sub.id, sub);
    const session = checkoutSessionObject({
      mode: 'subscription',
      clientReferenceId: u.user.id,
      customer: sub.customer,
      subscription: sub.id,
      amountTotal: 999,
    });
    stripe.reset();
    // The processor is down: 500, nothing kept; the retry applies it.
    stripe.failNext('/v1/subscriptions', {
      status: 500,
      error: { type: 'api_error', message: 'x' },
    });
    const event = stripeEvent('checkout.session.completed', session);
    const failed = await deliver(t.http, event, { secret: SECRET }).expect(500);
    expect(failed.body.code).toBe('WEBHOOK_HANDLER_FAILED');
    expect((await planOf(u)).plan).toBe('FREE');

    await deliver(t.http, event, { secret: SECRET }).expect(200, { received: true });
    expect(stripe.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v1/subscriptions/${sub.id}`,
      `GET /v1/subscriptions/${sub.id}`,
    ]);
    expect(await planOf(u)).toEqual({ plan: 'PRO', dailyLimit: 10000 });
    expect(await rowOf(sub.id)).toEqual(
      expect.objectContaining({ userId: u.user.id, customerId: 'cus_checkout_sub' }),
    );
    const [row] = await t.db.query('SELECT "paymentCustomerId" FROM users WHERE id = $1', [
      u.user.id,
    ]);
    expect(row.paymentCustomerId).toBe('cus_checkout_sub');
  });
});
