import { chargeObject, deliver, stripeEvent } from '../../servers/stripe-events';
import { StripeTestServer } from '../../servers/stripe-server';
import { ledgerOf, newTeam, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'whsec_test_local';

/**
 * Refunds and disputes of a credit purchase made for a team act on the team's pool, as a user's
 * purchase's act on that user's balance: the same proportional share, the same keys (so each
 * applies once however often delivered), bounded by the pool's balance; the buyer's own balance
 * is never touched, and the ledger equals the balances of every user and team after each.
 */
describe('team pools: refunds and disputes of a purchase for the team', () => {
  let t: TestApp;
  let p: Providers;
  let admin: TestUser;
  const stripe = new StripeTestServer();
  const send = (event: Record<string, unknown>) => deliver(t.http, event, { secret: SECRET });
  const refunded = (pi: string, amount: number, amountRefunded: number) =>
    stripeEvent('charge.refunded', chargeObject({ paymentIntent: pi, amount, amountRefunded }));
  const disputeEvent = (type: 'created' | 'closed', dispute: Record<string, unknown>) =>
    stripeEvent(`charge.dispute.${type}`, dispute);

  /** The pool's balance (no hold is open here, so it equals the Σ of its entries). */
  const poolOf = async (teamId: string) => {
    const [row] = await t.db.query(
      `SELECT t.credits, (SELECT COALESCE(SUM(amount), 0)::int FROM credit_transactions
         WHERE "teamId" = t.id) AS "ledgerSum" FROM teams t WHERE t.id = $1`,
      [teamId],
    );
    expect(row.credits).toBe(row.ledgerSum);
    return row.credits as number;
  };
  /** The pool's entries of the payment's refunds and disputes, oldest first. */
  const refundEntries = (teamId: string) =>
    t.db.query(
      `SELECT "userId", "memberId", amount, type, reference, description FROM credit_transactions
       WHERE "teamId" = $1 AND reference LIKE 'refund:%' ORDER BY "createdAt", id`,
      [teamId],
    );

  /** `balance + Σ open holds = Σ entries` and `balance ≥ 0` for every user and every team. */
  async function expectLedgersEqualBalances() {
    const broken = await t.db.query(
      `SELECT 'user' AS kind, u.id FROM users u
       WHERE u.credits < 0 OR u.credits + (SELECT COALESCE(SUM(amount), 0) FROM credit_holds h
         WHERE h."userId" = u.id) <> (SELECT COALESCE(SUM(amount), 0) FROM credit_transactions ct
         WHERE ct."userId" = u.id)
       UNION ALL
       SELECT 'team', tm.id FROM teams tm
       WHERE tm.credits < 0 OR tm.credits + (SELECT COALESCE(SUM(amount), 0) FROM credit_holds h
         WHERE h."teamId" = tm.id) <> (SELECT COALESCE(SUM(amount), 0) FROM credit_transactions ct
         WHERE ct."teamId" = tm.id)`,
    );
    expect(broken).toEqual([]);
  }

  /** An owner (50 credits of their own) buys 10 USD (1000 credits) by card for a new team's pool. */
  async function teamPurchase() {
    const owner = await newUser(t, { credits: 50 });
    const team = await newTeam(t, owner);
    const res = await t.http
      .post('/api/credits/purchase')
      .set(owner.auth)
      .send({ amount: 10, credits: 1000, teamId: team.id })
      .expect(200);
    const pi = stripe.succeedPaymentIntent(res.body.clientSecret.split('_secret_')[0]);
    await send(stripeEvent('payment_intent.succeeded', pi)).expect(200);
    expect(await poolOf(team.id)).toBe(1000);
    return { owner, team, pi };
  }

  const refund = (pi: string, amount?: number) =>
    t.http
      .post('/api/payment/refund')
      .set(admin.auth)
      .send({ paymentIntentId: pi, ...(amount ? { amount } : {}) })
      .expect(200);

  beforeAll(async () => {
    await stripe.start();
    p = await startProviders();
    t = await createTestApp({
      ...p.env,
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_API_BASE: stripe.url,
    });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
    await stripe.stop();
  });

  it('a full refund, delivered twice, takes the purchase back from the pool once', async () => {
    const { owner, team, pi } = await teamPurchase();
    await refund(pi.id);
    const event = refunded(pi.id, 1000, 1000);
    await send(event).expect(200, { received: true });
    await send(event).expect(200); // redelivered
    await send(refunded(pi.id, 1000, 1000)).expect(200); // another event, the same refund
    expect(await poolOf(team.id)).toBe(0);
    expect(await refundEntries(team.id)).toEqual([
      {
        userId: null,
        memberId: null,
        amount: -1000,
        type: 'REFUND',
        reference: `refund:${pi.id}:1000`,
        description: `Refund of 10.00 of 10.00 USD (${pi.id}): 1000 credits taken back`,
      },
    ]);
    expect(await ledgerOf(t, owner.user.id)).toMatchObject({ credits: 50, ledgerSum: 50 });
    const audits = await t.db.query(
      `SELECT "targetType", "targetId" FROM audit_events WHERE action = 'credits.refund.clawback'
       AND details ->> 'reference' = $1`,
      [pi.id],
    );
    expect(audits).toEqual([{ targetType: 'team', targetId: team.id }]);
    await expectLedgersEqualBalances();
  });

  it('a partial refund, delivered twice, takes its share once; the rest follows with the full refund', async () => {
    const { owner, team, pi } = await teamPurchase();
    await refund(pi.id, 4);
    const partial = refunded(pi.id, 1000, 400);
    await Promise.all([send(partial).expect(200), send(partial).expect(200)]);
    await send(refunded(pi.id, 1000, 400)).expect(200);
    expect(await poolOf(team.id)).toBe(600);
    await expectLedgersEqualBalances();

    await refund(pi.id);
    await send(refunded(pi.id, 1000, 1000)).expect(200);
    await send(refunded(pi.id, 1000, 1000)).expect(200);
    await send(partial).expect(200); // an older state, delivered late
    expect(await poolOf(team.id)).toBe(0);
    const entries = await refundEntries(team.id);
    expect(
      entries.map((e: { amount: number; reference: string }) => [e.amount, e.reference]),
    ).toEqual([
      [-400, `refund:${pi.id}:400`],
      [-600, `refund:${pi.id}:1000`],
    ]);
    expect((await ledgerOf(t, owner.user.id)).credits).toBe(50);
    await expectLedgersEqualBalances();
  });

  it('a lost dispute takes the credits from the pool once', async () => {
    const { owner, team, pi } = await teamPurchase();
    const dispute = stripe.disputePaymentIntent(pi.id);
    await send(disputeEvent('created', dispute)).expect(200);
    await send(disputeEvent('created', dispute)).expect(200);
    expect(await poolOf(team.id)).toBe(0);
    await expectLedgersEqualBalances();
    const lost = stripe.closeDispute(dispute.id, 'lost');
    await send(disputeEvent('closed', lost)).expect(200);
    await send(disputeEvent('closed', lost)).expect(200);
    expect(await poolOf(team.id)).toBe(0);
    expect(await refundEntries(team.id)).toEqual([
      {
        userId: null,
        memberId: null,
        amount: -1000,
        type: 'REFUND',
        reference: `refund:${pi.id}:dispute:${dispute.id}`,
        description: `Dispute of 10.00 USD (${pi.id}, ${dispute.id}): 1000 credits taken back`,
      },
    ]);
    expect((await ledgerOf(t, owner.user.id)).credits).toBe(50);
    await expectLedgersEqualBalances();
  });

  it('a won dispute returns the credits to the pool once; a refund after it takes them once', async () => {
    const { owner, team, pi } = await teamPurchase();
    const dispute = stripe.disputePaymentIntent(pi.id);
    await send(disputeEvent('created', dispute)).expect(200);
    expect(await poolOf(team.id)).toBe(0);
    const won = stripe.closeDispute(dispute.id, 'won');
    await send(disputeEvent('closed', won)).expect(200);
    await send(disputeEvent('closed', won)).expect(200);
    expect(await poolOf(team.id)).toBe(1000);
    const entries = await refundEntries(team.id);
    expect(entries[1]).toMatchObject({
      userId: null,
      memberId: null,
      amount: 1000,
      type: 'ADJUSTMENT',
      reference: `refund:${pi.id}:dispute:${dispute.id}:won`,
    });
    await expectLedgersEqualBalances();

    await refund(pi.id, 5);
    await send(refunded(pi.id, 1000, 500)).expect(200);
    await send(refunded(pi.id, 1000, 500)).expect(200);
    expect(await poolOf(team.id)).toBe(500);
    expect((await ledgerOf(t, owner.user.id)).credits).toBe(50);
    await expectLedgersEqualBalances();
  });

  it('bounds the clawback by a short pool: down to 0, the shortfall written in the entry', async () => {
    const { owner, team, pi } = await teamPurchase();
    // 1 000 000 prompt tokens at 0.0006 credits a token: 600 credits spent from the pool.
    p.openai.reply = { text: 'Hi', usage: { prompt_tokens: 1_000_000, completion_tokens: 0 } };
    await t.http
      .post('/api/ai/generate')
      .set(owner.auth)
      .send({
        modelId: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Hello' }],
        teamId: team.id,
      })
      .expect(200);
    expect(await poolOf(team.id)).toBe(400);
    await refund(pi.id);
    await send(refunded(pi.id, 1000, 1000)).expect(200);
    await send(refunded(pi.id, 1000, 1000)).expect(200);
    expect(await poolOf(team.id)).toBe(0);
    const [entry] = await refundEntries(team.id);
    expect(entry).toMatchObject({ amount: -400, reference: `refund:${pi.id}:1000` });
    expect(entry.description).toContain('(shortfall of 600 credits: pool too low)');
    expect((await ledgerOf(t, owner.user.id)).credits).toBe(50);
    await expectLedgersEqualBalances();
  });
});
