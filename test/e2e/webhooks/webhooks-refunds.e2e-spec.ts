import { CreditsService } from '../../../src/credits/credits.service';
import {
  chargeObject,
  deliver,
  paymentIntentObject,
  stripeEvent,
} from '../../servers/stripe-events';
import { StripeTestServer } from '../../servers/stripe-server';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'whsec_test_local';

describe('Webhooks: refunds take credits back in proportion, once', () => {
  let t: TestApp;
  let admin: TestUser;
  const stripe = new StripeTestServer();
  const send = (event: Record<string, unknown>) => deliver(t.http, event, { secret: SECRET });
  const refunded = (pi: string, amount: number, amountRefunded: number) =>
    stripeEvent('charge.refunded', chargeObject({ paymentIntent: pi, amount, amountRefunded }));
  const refundEntries = (userId: string) =>
    t.db.query(
      `SELECT amount, reference, description FROM credit_transactions
       WHERE "userId" = $1 AND type = 'REFUND' ORDER BY "createdAt"`,
      [userId],
    );

  /** Buys `usd` worth of credits (100 per USD) through the API and pays; returns the intent. */
  async function buy(u: TestUser, usd: number, deliverEvent = true) {
    await t.http
      .post('/api/credits/purchase')
      .set(u.auth)
      .send({ amount: usd, credits: usd * 100 })
      .expect(200);
    const pi = stripe.succeedPaymentIntent([...stripe.paymentIntents.keys()].pop()!);
    if (deliverEvent) await send(stripeEvent('payment_intent.succeeded', pi)).expect(200);
    return pi;
  }

  beforeAll(async () => {
    await stripe.start();
    t = await createTestApp({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_API_BASE: stripe.url,
    });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });

  it('refunds as an admin, then claws back half and the rest, each once, in any order', async () => {
    const u = await newUser(t);
    const pi = await buy(u, 10);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(1100);

    await t.http
      .post('/api/payment/refund')
      .set(admin.auth)
      .send({ paymentIntentId: pi.id, amount: 5 })
      .expect(200);
    const half = refunded(pi.id, 1000, 500);
    await send(half).expect(200, { received: true });
    await send(half).expect(200);
    await send(refunded(pi.id, 1000, 500)).expect(200); // another event, same cumulative refund
    expect((await ledgerOf(t, u.user.id)).credits).toBe(600);

    await t.http.post('/api/payment/refund').set(admin.auth).send({ paymentIntentId: pi.id });
    await send(refunded(pi.id, 1000, 1000)).expect(200);
    await send(refunded(pi.id, 1000, 500)).expect(200); // an older state, delivered late
    const entries = await refundEntries(u.user.id);
    expect(entries.map((e: { amount: number }) => e.amount)).toEqual([-500, -500]);
    expect(entries[0].reference).toBe(`refund:${pi.id}:500`);
    expect(entries[0].description).toContain('5.00 of 10.00 USD');
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 4 });
  });

  it('never takes more than the share when refund events race', async () => {
    const u = await newUser(t);
    const pi = await buy(u, 9.99);
    const results = await Promise.all(
      [333, 666, 999, 666, 999, 333].map((r) => send(refunded(pi.id, 999, r))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    const taken = (await refundEntries(u.user.id)).reduce(
      (sum: number, e: { amount: number }) => sum + e.amount,
      0,
    );
    expect(taken).toBe(-999);
    expect(await ledgerOf(t, u.user.id)).toEqual(expect.objectContaining({ credits: 100 }));
  });

  it('rounds partial shares down and bounds the clawback by the balance, noting the shortfall', async () => {
    const u = await newUser(t);
    const pi = await buy(u, 3);
    await send(refunded(pi.id, 300, 100)).expect(200); // a third: floor(300 × 100 / 300) = 100
    expect((await ledgerOf(t, u.user.id)).credits).toBe(300);

    await t.app.get(CreditsService).consume(u.user.id, 250, 'spent on replies');
    await send(refunded(pi.id, 300, 300)).expect(200); // 200 more due, 50 left
    const [, last] = await refundEntries(u.user.id);
    expect(last.amount).toBe(-50);
    expect(last.description).toContain('shortfall of 150 credits');
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 0, ledgerSum: 0, entries: 5 });
  });

  it('grants then takes back when the refund arrives before the payment event', async () => {
    const u = await newUser(t);
    const pi = await buy(u, 2, false);
    stripe.reset();
    await send(refunded(pi.id, 200, 200)).expect(200);
    expect(stripe.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v1/payment_intents/${pi.id}`,
    ]);
    await send(stripeEvent('payment_intent.succeeded', pi)).expect(200);
    const rows = await t.db.query(
      `SELECT type, amount FROM credit_transactions WHERE "userId" = $1 ORDER BY "createdAt"`,
      [u.user.id],
    );
    expect(rows).toEqual([
      { type: 'BONUS', amount: 100 },
      { type: 'PURCHASE', amount: 200 },
      { type: 'REFUND', amount: -200 },
    ]);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 3 });
    // The purchase record ends refunded, though its payment event came last.
    const [purchase] = await t.db.query(
      'SELECT status, "refundedAmount" FROM purchases WHERE "paymentIntentId" = $1',
      [pi.id],
    );
    expect(purchase).toEqual({ status: 'refunded', refundedAmount: 200 });
  });

  it('acknowledges refunds of payments that bought no credits', async () => {
    const other = paymentIntentObject({ amount: 999, metadata: {} });
    stripe.paymentIntents.set(other.id, other);
    await send(refunded(other.id, 999, 999)).expect(200, { received: true });
    await send(refunded('pi_unknown_to_everyone', 999, 999)).expect(200, { received: true });
    await send(
      stripeEvent(
        'charge.refunded',
        chargeObject({ paymentIntent: null, amount: 5, amountRefunded: 5 }),
      ),
    ).expect(200);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM credit_transactions
      WHERE type = 'REFUND' AND reference LIKE 'refund:pi_unknown%'`);
    expect(n).toBe(0);
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
