import { deliver, stripeEvent } from '../../servers/stripe-events';
import { StripeTestServer } from '../../servers/stripe-server';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { moved, parseMetrics, type Samples } from '../../support/metrics';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'whsec_test_local';
const METRIC = 'payments_reconciliation_findings_total';

/**
 * The reconciliation reads the local Stripe server's paid payments through the SDK's
 * auto-pagination (one object a page here): a paid payment whose webhook never came lands in
 * the failed webhooks (reason `reconciliation`) and is granted once on replay; a grant whose
 * payment is not paid at the processor is flagged; each mismatch is stored and counted once.
 */
describe('Payments reconciliation', () => {
  let t: TestApp;
  let admin: TestUser;
  const stripe = new StripeTestServer();
  const scrape = async (): Promise<Samples> =>
    parseMetrics((await t.http.get('/metrics').expect(200)).text);
  const run = () => t.http.post('/api/admin/reconciliation/run').set(admin.auth).expect(200);
  const failureRows = (eventId: string) =>
    t.db.query('SELECT * FROM webhook_failures WHERE "eventId" = $1', [eventId]);
  const findings = async (query = '') =>
    (await t.http.get(`/api/admin/reconciliation/findings${query}`).set(admin.auth).expect(200))
      .body.data as Record<string, unknown>[];
  const replay = (eventId: string) =>
    t.http.post(`/api/admin/webhooks/failed/${eventId}/replay`).set(admin.auth).expect(200);
  /** Buys through the API with `body`; the payment intent's id and the purchase's id. */
  const buy = async (u: TestUser, body: Record<string, unknown>) => {
    const res = await t.http.post('/api/credits/purchase').set(u.auth).send(body).expect(200);
    const [row] = await t.db.query('SELECT "paymentIntentId" FROM purchases WHERE id = $1', [
      res.body.purchaseId,
    ]);
    return { pi: row.paymentIntentId as string, purchaseId: res.body.purchaseId as string };
  };
  const purchaseStatus = async (id: string) =>
    (await t.db.query('SELECT status FROM purchases WHERE id = $1', [id]))[0].status;

  beforeAll(async () => {
    await stripe.start();
    stripe.listPageCap = 1;
    t = await createTestApp({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_API_BASE: stripe.url,
      APP_BASE_URL: 'http://app.test',
      CREDIT_PACKS: JSON.stringify([{ id: 'starter', credits: 1000, amount: 10, currency: 'usd' }]),
    });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });

  it('finds a paid card payment whose webhook never came, stores it once, and its replay grants once', async () => {
    const u = await newUser(t);
    const before = await ledgerOf(t, u.user.id);
    const unpaid = await buy(u, { amount: 3, credits: 300 }); // never paid: not a finding
    const { pi, purchaseId } = await buy(u, { amount: 5, credits: 500 });
    stripe.succeedPaymentIntent(pi);
    const metricsBefore = await scrape();
    stripe.reset();

    const first = (await run()).body;
    expect(first).toMatchObject({ missingGrants: 1, unpaidGrants: 0, newFindings: 1 });
    // Read page by page through the SDK's auto-pagination.
    const pages = stripe.requests.filter((r) => r.path === '/v1/payment_intents');
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0].query.created.gte).toEqual(expect.any(String));
    expect(pages[1].query.starting_after).toEqual(expect.any(String));

    const eventId = `evt_reconcile_${pi}`;
    const listed = await t.http.get('/api/admin/webhooks/failed').set(admin.auth).expect(200);
    expect(listed.body.data).toContainEqual(
      expect.objectContaining({
        eventId,
        type: 'payment_intent.succeeded',
        reason: 'reconciliation',
        attempts: 1,
      }),
    );
    expect(await findings('?kind=missing_grant')).toContainEqual(
      expect.objectContaining({
        kind: 'missing_grant',
        reference: pi,
        eventId,
        userId: u.user.id,
        amount: 500,
        currency: 'usd',
        processorStatus: 'succeeded',
      }),
    );
    expect((await findings()).map((f) => f.reference)).not.toContain(unpaid.pi);

    // A second pass adds nothing: one failed entry, one finding, counted once.
    expect((await run()).body).toMatchObject({ missingGrants: 1, newFindings: 0 });
    expect(await failureRows(eventId)).toEqual([expect.objectContaining({ attempts: 1 })]);
    expect((await findings()).filter((f) => f.reference === pi)).toHaveLength(1);
    expect(moved(metricsBefore, await scrape(), METRIC, { kind: 'missing_grant' })).toBe(1);

    expect((await replay(eventId)).body).toEqual({ eventId, outcome: 'processed' });
    expect((await replay(eventId)).body).toEqual({ eventId, outcome: 'duplicate' });
    expect((await ledgerOf(t, u.user.id)).credits).toBe(before.credits + 500);
    expect(await purchaseStatus(purchaseId)).toBe('succeeded');
    expect(await failureRows(eventId)).toEqual([]);
    // Granted now: a later pass finds nothing to store again.
    expect((await run()).body).toMatchObject({ missingGrants: 0, unpaidGrants: 0 });
    expect(await failureRows(eventId)).toEqual([]);
  });

  it('covers Alipay payments', async () => {
    const u = await newUser(t);
    const { pi, purchaseId } = await buy(u, { amount: 50, credits: 700, paymentMethod: 'alipay' });
    stripe.succeedPaymentIntent(pi);
    expect((await run()).body).toMatchObject({ newFindings: 1 });
    const eventId = `evt_reconcile_${pi}`;
    expect(await failureRows(eventId)).toEqual([
      expect.objectContaining({ reason: 'reconciliation', type: 'payment_intent.succeeded' }),
    ]);
    await replay(eventId);
    expect(await purchaseStatus(purchaseId)).toBe('succeeded');
    expect((await ledgerOf(t, u.user.id)).credits).toBeGreaterThanOrEqual(700);
  });

  it('covers a paid Checkout Session, stored as its session event (its intent not twice)', async () => {
    const u = await newUser(t);
    const before = await ledgerOf(t, u.user.id);
    const { body } = await t.http
      .post('/api/credits/checkout')
      .set(u.auth)
      .send({ packId: 'starter' })
      .expect(200);
    const paid = stripe.checkout.complete(body.sessionId); // its events are never delivered
    const pi = paid.paymentIntent!.id;
    expect((await run()).body).toMatchObject({ newFindings: 1 });
    const eventId = `evt_reconcile_${body.sessionId}`;
    expect(await failureRows(eventId)).toEqual([
      expect.objectContaining({ reason: 'reconciliation', type: 'checkout.session.completed' }),
    ]);
    expect(await failureRows(`evt_reconcile_${pi}`)).toEqual([]);
    expect(await findings('?kind=missing_grant')).toContainEqual(
      expect.objectContaining({ reference: pi, eventId, amount: 1000, currency: 'usd' }),
    );

    expect((await replay(eventId)).body.outcome).toBe('processed');
    expect((await ledgerOf(t, u.user.id)).credits).toBe(before.credits + 1000);
    const [purchase] = await t.db.query(
      'SELECT status, "paymentIntentId" FROM purchases WHERE "checkoutSessionId" = $1',
      [body.sessionId],
    );
    expect(purchase).toEqual({ status: 'succeeded', paymentIntentId: pi });
    // The intent's own event, delivered late, finds the grant.
    await deliver(t.http, stripeEvent('payment_intent.succeeded', paid.paymentIntent!), {
      secret: SECRET,
    }).expect(200);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(before.credits + 1000);
  });

  it('flags a granted purchase whose payment is not paid at the processor, once', async () => {
    const u = await newUser(t);
    const { pi } = await buy(u, { amount: 2, credits: 200 });
    // A forged event: the processor's intent still waits for a payment method.
    const forged = { ...stripe.paymentIntents.get(pi)!, status: 'succeeded', amount_received: 200 };
    await deliver(t.http, stripeEvent('payment_intent.succeeded', forged), {
      secret: SECRET,
    }).expect(200);
    const metricsBefore = await scrape();

    expect((await run()).body).toMatchObject({ unpaidGrants: 1, newFindings: 1 });
    expect((await run()).body).toMatchObject({ unpaidGrants: 1, newFindings: 0 });
    const flagged = (await findings('?kind=unpaid_grant')).filter((f) => f.reference === pi);
    expect(flagged).toEqual([
      expect.objectContaining({
        kind: 'unpaid_grant',
        eventId: null,
        userId: u.user.id,
        amount: 200,
        processorStatus: 'requires_payment_method',
      }),
    ]);
    expect(await failureRows(`evt_reconcile_${pi}`)).toEqual([]);
    const after = await scrape();
    expect(moved(metricsBefore, after, METRIC, { kind: 'unpaid_grant' })).toBe(1);
    expect(moved(metricsBefore, after, METRIC, { kind: 'missing_grant' })).toBe(0);
  });

  it('is for administrators only, and refuses an unknown kind', async () => {
    const u = await newUser(t);
    await t.http.post('/api/admin/reconciliation/run').set(u.auth).expect(403);
    await t.http.get('/api/admin/reconciliation/findings').set(u.auth).expect(403);
    await t.http.post('/api/admin/reconciliation/run').expect(401);
    const bad = await t.http
      .get('/api/admin/reconciliation/findings?kind=bogus')
      .set(admin.auth)
      .expect(400);
    expect(bad.body.code).toEqual(expect.any(String));
  });
});
