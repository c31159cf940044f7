import { CreditsService } from '../../../src/credits/credits.service';
import { chargeObject, deliver, disputeObject, stripeEvent } from '../../servers/stripe-events';
import { StripeTestServer } from '../../servers/stripe-server';
import { signUpReferred } from '../../support/accounts';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'whsec_test_local';

describe('Disputes: a chargeback takes the credits back, a won dispute gives them back once', () => {
  let t: TestApp;
  const stripe = new StripeTestServer();
  const send = (event: Record<string, unknown>) => deliver(t.http, event, { secret: SECRET });
  const created = (dispute: Record<string, any>) => stripeEvent('charge.dispute.created', dispute);
  const closed = (dispute: Record<string, any>, status: 'won' | 'lost' | 'warning_closed') =>
    stripeEvent('charge.dispute.closed', { ...dispute, status });
  const purchaseOf = async (pi: string) =>
    (
      await t.db.query(
        'SELECT status, "refundedAmount" FROM purchases WHERE "paymentIntentId" = $1',
        [pi],
      )
    )[0];
  const entries = (userId: string) =>
    t.db.query(
      `SELECT amount, type, reference, description FROM credit_transactions
       WHERE "userId" = $1 AND reference LIKE 'refund:%' ORDER BY "createdAt", id`,
      [userId],
    );

  /** Buys `usd` worth of credits by card through the API and delivers the payment's webhook. */
  async function buy(u: TestUser, usd: number) {
    const res = await t.http
      .post('/api/credits/purchase')
      .set(u.auth)
      .send({ amount: usd, credits: usd * 100 })
      .expect(200);
    const pi = stripe.succeedPaymentIntent(res.body.clientSecret.split('_secret_')[0]);
    await send(stripeEvent('payment_intent.succeeded', pi)).expect(200);
    return pi;
  }

  beforeAll(async () => {
    await stripe.start();
    t = await createTestApp({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_API_BASE: stripe.url,
      REFERRAL_REWARD: '100',
    });
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });

  it('claws back, reverses the referral reward, marks the purchase disputed and audits; a win restores once', async () => {
    const referrer = await newUser(t);
    const { code } = (await t.http.get('/api/referrals').set(referrer.auth).expect(200)).body;
    // The sign-up bonus and the referral reward wait for a verified address.
    const buyer = await signUpReferred(t, code);
    const pi = await buy(buyer, 10);
    expect((await ledgerOf(t, buyer.user.id)).credits).toBe(1100);
    expect((await ledgerOf(t, referrer.user.id)).credits).toBe(200);

    const dispute = stripe.disputePaymentIntent(pi.id);
    const opened = created(dispute);
    await send(opened).expect(200, { received: true });
    await send(opened).expect(200); // redelivered
    await send(created(dispute)).expect(200); // another event of the same dispute
    expect(await ledgerOf(t, buyer.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 3 });
    expect(await entries(buyer.user.id)).toEqual([
      {
        amount: -1000,
        type: 'REFUND',
        reference: `refund:${pi.id}:dispute:${dispute.id}`,
        description: `Dispute of 10.00 USD (${pi.id}, ${dispute.id}): 1000 credits taken back`,
      },
    ]);
    expect(await purchaseOf(pi.id)).toEqual({ status: 'disputed', refundedAmount: 0 });
    const mine = await t.http.get('/api/credits/purchases').set(buyer.auth).expect(200);
    expect(mine.body.data[0].status).toBe('disputed');
    // The referrer's reward is reversed, once.
    expect(await ledgerOf(t, referrer.user.id)).toMatchObject({ credits: 100, ledgerSum: 100 });
    const [referral] = await t.db.query('SELECT status FROM referrals WHERE "referredId" = $1', [
      buyer.user.id,
    ]);
    expect(referral.status).toBe('reversed');
    const [audit] = await t.db.query(
      `SELECT "actorType", details FROM audit_events WHERE action = 'credits.dispute.clawback'`,
    );
    expect(audit).toEqual({
      actorType: 'webhook',
      details: { credits: 1000, due: 1000, reference: pi.id, dispute: dispute.id },
    });

    // Won: the credits come back once, however often the close is delivered.
    const won = closed(stripe.closeDispute(dispute.id, 'won'), 'won');
    await send(won).expect(200);
    await send(won).expect(200);
    await send(closed(dispute, 'won')).expect(200);
    await send(opened).expect(200); // a late redelivery of the opening takes nothing
    expect(await ledgerOf(t, buyer.user.id)).toEqual({
      credits: 1100,
      ledgerSum: 1100,
      entries: 4,
    });
    const [restored] = (await entries(buyer.user.id)).slice(1);
    expect(restored).toMatchObject({
      amount: 1000,
      type: 'ADJUSTMENT',
      reference: `refund:${pi.id}:dispute:${dispute.id}:won`,
    });
    expect(await purchaseOf(pi.id)).toEqual({ status: 'succeeded', refundedAmount: 0 });
    const actions = await t.db.query(
      `SELECT action FROM audit_events WHERE "targetId" = $1 ORDER BY at`,
      [buyer.user.id],
    );
    expect(actions.map((a: { action: string }) => a.action)).toEqual([
      'credits.purchase.grant',
      'credits.dispute.clawback',
      'credits.dispute.restore',
    ]);
    // The reward stays reversed: a won dispute gives back the buyer's credits only.
    expect((await ledgerOf(t, referrer.user.id)).credits).toBe(100);
  });

  it('takes what the balance allows, recording the shortfall; a lost dispute keeps it taken', async () => {
    const u = await newUser(t);
    const pi = await buy(u, 5);
    await t.app.get(CreditsService).consume(u.user.id, 450, 'spent');
    const dispute = stripe.disputePaymentIntent(pi.id);
    await send(created(dispute)).expect(200);
    const [entry] = await entries(u.user.id);
    expect(entry.amount).toBe(-150);
    expect(entry.description).toContain('500 credits taken back (shortfall of 350 credits');
    expect(await ledgerOf(t, u.user.id)).toMatchObject({ credits: 0, ledgerSum: 0 });

    await send(closed(dispute, 'lost')).expect(200);
    await send(closed(dispute, 'lost')).expect(200);
    expect(await ledgerOf(t, u.user.id)).toMatchObject({ credits: 0, ledgerSum: 0 });
    expect((await purchaseOf(pi.id)).status).toBe('disputed');
    // A late payment event does not undo the dispute.
    await send(stripeEvent('payment_intent.succeeded', pi)).expect(200);
    expect((await purchaseOf(pi.id)).status).toBe('disputed');
  });

  it('applies in any order: a close seen before the opening', async () => {
    const u = await newUser(t);
    const wonFirst = stripe.disputePaymentIntent((await buy(u, 5)).id);
    const opening = created({ ...wonFirst });
    await send(closed(wonFirst, 'won')).expect(200);
    await send(opening).expect(200);
    await send(opening).expect(200);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 600, ledgerSum: 600, entries: 2 });

    const lostPi = await buy(u, 3);
    const lostFirst = stripe.disputePaymentIntent(lostPi.id);
    await send(closed(lostFirst, 'lost')).expect(200);
    await send(created(lostFirst)).expect(200);
    await send(closed(lostFirst, 'lost')).expect(200);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 600, ledgerSum: 600, entries: 4 });
    expect((await purchaseOf(lostPi.id)).status).toBe('disputed');

    // Opening and win racing, each delivered twice: whatever the order, the credits end whole.
    const racedPi = await buy(u, 2);
    const raced = stripe.disputePaymentIntent(racedPi.id);
    const [open, win] = [created(raced), closed(raced, 'won')];
    const answers = await Promise.all([open, win, open, win].map(send));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(await ledgerOf(t, u.user.id)).toMatchObject({ credits: 800, ledgerSum: 800 });
    expect((await purchaseOf(racedPi.id)).status).toBe('succeeded');
  });

  it('takes back at once a grant made after the dispute (its payment event delivered late)', async () => {
    const u = await newUser(t);
    const res = await t.http
      .post('/api/credits/purchase')
      .set(u.auth)
      .send({ amount: 4, credits: 400 })
      .expect(200);
    const pi = stripe.succeedPaymentIntent(res.body.clientSecret.split('_secret_')[0]);
    const dispute = stripe.disputePaymentIntent(pi.id);
    await send(created(dispute)).expect(200); // nothing granted yet, nothing to take
    expect((await purchaseOf(pi.id)).status).toBe('disputed');
    const paid = stripeEvent('payment_intent.succeeded', pi);
    await send(paid).expect(200);
    await send(paid).expect(200);
    expect((await entries(u.user.id)).map((e: { amount: number }) => e.amount)).toEqual([-400]);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 3 });
    expect((await purchaseOf(pi.id)).status).toBe('disputed');
    await send(closed(dispute, 'won')).expect(200);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 500, ledgerSum: 500, entries: 4 });
    expect((await purchaseOf(pi.id)).status).toBe('succeeded');
  });

  it('never takes the same credits twice with refunds of the same payment', async () => {
    const u = await newUser(t);
    const pi = await buy(u, 10);
    const refunded = (amountRefunded: number) =>
      stripeEvent(
        'charge.refunded',
        chargeObject({ paymentIntent: pi.id, amount: 1000, amountRefunded }),
      );
    await send(refunded(400)).expect(200); // 400 credits back to the processor
    const dispute = stripe.disputePaymentIntent(pi.id);
    await send(created(dispute)).expect(200); // takes the remaining 600
    await send(refunded(1000)).expect(200); // nothing is left to take
    expect((await entries(u.user.id)).map((e: { amount: number }) => e.amount)).toEqual([
      -400, -600,
    ]);
    expect(await ledgerOf(t, u.user.id)).toMatchObject({ credits: 100, ledgerSum: 100 });
  });

  it('acknowledges a dispute of a payment that is not ours, changing nothing', async () => {
    const before = await t.db.query('SELECT count(*)::int AS n FROM credit_transactions');
    const foreign = disputeObject({ paymentIntent: 'pi_elsewhere_1', amount: 2000 });
    await send(created(foreign)).expect(200, { received: true });
    await send(closed(foreign, 'won')).expect(200);
    await send(created(disputeObject({ paymentIntent: null, amount: 100 }))).expect(200);
    expect(await t.db.query('SELECT count(*)::int AS n FROM credit_transactions')).toEqual(before);
  });

  it('keeps users.credits + Σ open holds = Σ ledger for every user after all of it', async () => {
    const broken = await t.db.query(
      `SELECT u.id FROM users u
       WHERE u.credits < 0 OR u.credits + (SELECT COALESCE(SUM(amount), 0) FROM credit_holds h
         WHERE h."userId" = u.id) <> (SELECT COALESCE(SUM(amount), 0) FROM credit_transactions ct
         WHERE ct."userId" = u.id)`,
    );
    expect(broken).toEqual([]);
  });
});
