import { randomUUID } from 'node:crypto';
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

/**
 * A signed event whose handler throws, or a paid purchase that cannot be applied, is kept with
 * its raw payload and replayed exactly once; webhook grants and clawbacks and admin refunds are
 * audited.
 */
describe('Webhooks: the dead-letter table and replay', () => {
  let t: TestApp;
  let admin: TestUser;
  const stripe = new StripeTestServer();
  const send = (event: Record<string, unknown>) => deliver(t.http, event, { secret: SECRET });
  const failures = () => t.db.query('SELECT * FROM webhook_failures ORDER BY "eventId"');
  const purchase = (userId: string, credits: number) =>
    stripeEvent(
      'payment_intent.succeeded',
      paymentIntentObject({
        amount: credits,
        metadata: { userId, credits: String(credits), type: 'credit_purchase' },
      }),
    );
  /** Until `undo()`, the ledger refuses entries of `userId`: the grant's handler throws. */
  async function breakLedgerOf(userId: string): Promise<() => Promise<void>> {
    await t.db.query(`CREATE OR REPLACE FUNCTION refuse_entry() RETURNS trigger LANGUAGE plpgsql
      AS $$ BEGIN RAISE EXCEPTION 'ledger unavailable for this user'; END $$`);
    await t.db.query(`CREATE TRIGGER refuse_entry BEFORE INSERT ON credit_transactions
      FOR EACH ROW WHEN (NEW."userId" = '${userId}') EXECUTE FUNCTION refuse_entry()`);
    return async () => {
      await t.db.query('DROP TRIGGER refuse_entry ON credit_transactions');
    };
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

  it('keeps a failing event with its payload (500 each time), then replays it once', async () => {
    const u = await newUser(t);
    const event = purchase(u.user.id, 700);
    const undo = await breakLedgerOf(u.user.id);
    const res = await send(event).expect(500);
    expect(res.body).toEqual({ error: expect.any(String), code: 'WEBHOOK_HANDLER_FAILED' });
    await send(event).expect(500); // the processor's retry fails the same way
    const [row] = await failures();
    expect(row).toMatchObject({
      eventId: event.id,
      type: 'payment_intent.succeeded',
      attempts: 2,
      error: expect.stringContaining('ledger unavailable for this user'),
    });
    expect(JSON.parse(row.payload)).toEqual(event);
    expect(row.lastAttemptAt.getTime()).toBeGreaterThanOrEqual(row.firstAttemptAt.getTime());

    const listed = await t.http.get('/api/admin/webhooks/failed').set(admin.auth).expect(200);
    expect(listed.body).toEqual({
      data: [
        {
          eventId: event.id,
          type: 'payment_intent.succeeded',
          reason: 'handler',
          error: expect.any(String),
          attempts: 2,
          firstAttemptAt: expect.any(String),
          lastAttemptAt: expect.any(String),
        },
      ],
      nextCursor: null,
    });

    // Replay while the cause remains: 500 again, one more attempt, nothing granted.
    await t.http.post(`/api/admin/webhooks/failed/${event.id}/replay`).set(admin.auth).expect(500);
    expect((await failures())[0].attempts).toBe(3);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });

    await undo();
    const replayed = await t.http
      .post(`/api/admin/webhooks/failed/${event.id}/replay`)
      .set(admin.auth)
      .expect(200);
    expect(replayed.body).toEqual({ eventId: event.id, outcome: 'processed' });
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 800, ledgerSum: 800, entries: 2 });
    expect(await failures()).toEqual([]);

    // A second replay, and a late processor retry, are no-ops.
    const again = await t.http
      .post(`/api/admin/webhooks/failed/${event.id}/replay`)
      .set(admin.auth)
      .expect(200);
    expect(again.body).toEqual({ eventId: event.id, outcome: 'duplicate' });
    await send(event).expect(200);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 800, ledgerSum: 800, entries: 2 });

    // The grant is audited as the webhook's, in the replay's transaction.
    const audit = await t.db.query(`SELECT * FROM audit_events WHERE "targetId" = $1`, [u.user.id]);
    expect(audit).toEqual([
      expect.objectContaining({
        action: 'credits.purchase.grant',
        actorType: 'webhook',
        actorId: null,
        details: { credits: 700, reference: event.data.object.id, amount: 700, currency: 'usd' },
      }),
    ]);
  });

  it('drops the stored failure when the processor’s retry succeeds', async () => {
    const u = await newUser(t);
    const event = purchase(u.user.id, 300);
    const undo = await breakLedgerOf(u.user.id);
    await send(event).expect(500);
    expect((await failures()).map((f: { eventId: string }) => f.eventId)).toEqual([event.id]);
    await undo();
    await send(event).expect(200);
    expect(await failures()).toEqual([]);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(400);
  });

  it('keeps a paid purchase of an unknown user (500), and grants it once when replayed after the account exists', async () => {
    const userId = randomUUID();
    const event = purchase(userId, 600);
    const res = await send(event).expect(500);
    expect(res.body).toEqual({ error: expect.any(String), code: 'WEBHOOK_HANDLER_FAILED' });
    await send(event).expect(500); // the processor retries; still no such account
    const listed = await t.http.get('/api/admin/webhooks/failed').set(admin.auth).expect(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        eventId: event.id,
        type: 'payment_intent.succeeded',
        attempts: 2,
        error: `UnappliableEvent: Paid credit purchase ${event.data.object.id} names no existing user (userId ${userId})`,
      }),
    ]);
    await t.http.post(`/api/admin/webhooks/failed/${event.id}/replay`).set(admin.auth).expect(500);

    // The account is restored (e.g. from a backup) with its id; now the replay applies.
    await t.db.query(`INSERT INTO users (id, email, name) VALUES ($1, $2, 'Restored')`, [
      userId,
      `restored-${userId}@example.com`,
    ]);
    const replay = () =>
      t.http.post(`/api/admin/webhooks/failed/${event.id}/replay`).set(admin.auth).expect(200);
    expect((await replay()).body).toEqual({ eventId: event.id, outcome: 'processed' });
    expect((await replay()).body).toEqual({ eventId: event.id, outcome: 'duplicate' });
    await send(event).expect(200); // a late processor retry
    expect(await ledgerOf(t, userId)).toEqual({ credits: 600, ledgerSum: 600, entries: 1 });
    expect(await failures()).toEqual([]);
  });

  it('answers 404 for an unknown event id, and is for admins only', async () => {
    await t.http
      .post('/api/admin/webhooks/failed/evt_never_seen/replay')
      .set(admin.auth)
      .expect(404);
    // An id that cannot be an event id (a NUL byte PostgreSQL text cannot hold): 404, not 500.
    await t.http.post('/api/admin/webhooks/failed/%00/replay').set(admin.auth).expect(404);
    const u = await newUser(t);
    await t.http.get('/api/admin/webhooks/failed').set(u.auth).expect(403);
    await t.http.post('/api/admin/webhooks/failed/evt_x/replay').set(u.auth).expect(403);
    await t.http.get('/api/admin/webhooks/failed').expect(401);
  });

  it('audits an admin refund and the clawback its webhook makes', async () => {
    const u = await newUser(t);
    await t.http
      .post('/api/credits/purchase')
      .set(u.auth)
      .send({ amount: 10, credits: 1000 })
      .expect(200);
    const pi = stripe.succeedPaymentIntent([...stripe.paymentIntents.keys()].pop()!);
    await send(stripeEvent('payment_intent.succeeded', pi)).expect(200);
    await t.http
      .post('/api/payment/refund')
      .set(admin.auth)
      .send({ paymentIntentId: pi.id, amount: 5 })
      .expect(200);
    await send(
      stripeEvent(
        'charge.refunded',
        chargeObject({ paymentIntent: pi.id, amount: 1000, amountRefunded: 500 }),
      ),
    ).expect(200);
    const [refund] = await t.db.query(`SELECT * FROM audit_events WHERE "targetId" = $1`, [pi.id]);
    expect(refund).toMatchObject({
      action: 'payment.refund',
      actorId: admin.user.id,
      actorType: 'admin',
      targetType: 'payment',
      details: { refundId: expect.stringMatching(/^re_/), amount: 500, currency: 'usd' },
    });
    const onUser = await t.db.query(
      `SELECT action, "actorType", details FROM audit_events WHERE "targetId" = $1 ORDER BY at`,
      [u.user.id],
    );
    expect(onUser).toEqual([
      expect.objectContaining({ action: 'credits.purchase.grant', actorType: 'webhook' }),
      {
        action: 'credits.refund.clawback',
        actorType: 'webhook',
        details: { credits: 500, reference: pi.id, refunded: 500, paid: 1000, currency: 'usd' },
      },
    ]);
    // A refused refund (unknown intent) writes no row.
    await t.http
      .post('/api/payment/refund')
      .set(admin.auth)
      .send({ paymentIntentId: 'pi_unknown_0001' })
      .expect(400);
    expect(
      await t.db.query(`SELECT 1 FROM audit_events WHERE "targetId" = 'pi_unknown_0001'`),
    ).toEqual([]);
  });
});
