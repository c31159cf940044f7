import { deliver, paymentIntentObject, stripeEvent } from '../../servers/stripe-events';
import { StripeTestServer } from '../../servers/stripe-server';
import { ledgerOf, newTeam, newUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'whsec_test_local';

/**
 * A credit purchase made for a team's pool: the same purchase paths (card, Alipay, WeChat Pay)
 * with metadata `teamId`, only for the team's OWNERs and ADMINs, granted into the pool once by
 * the webhook in the event's transaction.
 */
describe('team pools: purchases for the team', () => {
  let t: TestApp;
  const stripe = new StripeTestServer();
  const send = (event: Record<string, unknown>) => deliver(t.http, event, { secret: SECRET });
  const poolOf = async (teamId: string) => {
    const [row] = await t.db.query(
      `SELECT t.credits, (SELECT COALESCE(SUM(amount), 0)::int FROM credit_transactions
         WHERE "teamId" = t.id) AS "ledgerSum" FROM teams t WHERE t.id = $1`,
      [teamId],
    );
    expect(row.credits).toBe(row.ledgerSum); // no hold is open here
    return row.credits as number;
  };
  const purchasesOf = async (userId: string) =>
    (await t.db.query('SELECT "teamId" FROM purchases WHERE "userId" = $1', [userId])) as {
      teamId: string | null;
    }[];

  beforeAll(async () => {
    await stripe.start();
    t = await createTestApp({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_API_BASE: stripe.url,
    });
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });

  it('buys for the pool: metadata teamId, granted into the pool once, the buyer untouched', async () => {
    const owner = await newUser(t, { credits: 10 });
    const team = await newTeam(t, owner);
    await t.http
      .post('/api/credits/purchase')
      .set(owner.auth)
      .send({ amount: 19.99, credits: 279, paymentMethod: 'wechat_pay', teamId: team.id })
      .expect(200);
    const sent = stripe.requests.filter((r) => r.path === '/v1/payment_intents').pop()!.body;
    expect(sent).toMatchObject({
      metadata: { userId: owner.user.id, teamId: team.id, credits: '279' },
    });
    expect(await purchasesOf(owner.user.id)).toEqual([{ teamId: team.id }]);
    const pi = stripe.succeedPaymentIntent([...stripe.paymentIntents.keys()].pop()!);
    const event = stripeEvent('payment_intent.succeeded', pi);
    const replays = await Promise.all([send(event), send(event), send(event)]);
    expect(replays.map((r) => r.status)).toEqual([200, 200, 200]);
    // Another event of the same payment grants nothing more either.
    await send(stripeEvent('payment_intent.succeeded', pi)).expect(200);
    expect(await poolOf(team.id)).toBe(279);
    const [entry] = await t.db.query(
      `SELECT "userId", "memberId", amount, type, reference FROM credit_transactions
       WHERE "teamId" = $1`,
      [team.id],
    );
    expect(entry).toEqual({
      userId: null,
      memberId: owner.user.id,
      amount: 279,
      type: 'PURCHASE',
      reference: pi.id,
    });
    expect(await ledgerOf(t, owner.user.id)).toMatchObject({ credits: 10, ledgerSum: 10 });
  });

  it('lets only OWNERs and ADMINs buy for the team; nothing is created otherwise', async () => {
    const owner = await newUser(t);
    const admin = await newUser(t);
    const member = await newUser(t);
    const stranger = await newUser(t);
    const team = await newTeam(t, owner, {
      members: [
        [admin, 'ADMIN'],
        [member, 'MEMBER'],
      ],
    });
    const buy = (u: typeof owner, teamId: string) =>
      t.http.post('/api/credits/purchase').set(u.auth).send({ amount: 5, credits: 500, teamId });
    await buy(admin, team.id).expect(200);
    const before = stripe.requests.length;
    expect((await buy(member, team.id).expect(403)).body.code).toBe('FORBIDDEN');
    expect((await buy(stranger, team.id).expect(404)).body.code).toBe('NOT_FOUND');
    await buy(owner, 'not-a-team').expect(400);
    expect(stripe.requests.length).toBe(before);
    expect(await purchasesOf(member.user.id)).toEqual([]);
    expect(await purchasesOf(stranger.user.id)).toEqual([]);
  });

  it('keeps a paid purchase for a team that is gone in the failed webhooks, granting nothing', async () => {
    const owner = await newUser(t);
    const gone = '00000000-0000-4000-8000-000000000001';
    const pi = paymentIntentObject({
      amount: 500,
      metadata: { userId: owner.user.id, teamId: gone, credits: '500', type: 'credit_purchase' },
    });
    const event = stripeEvent('payment_intent.succeeded', pi);
    await send(event).expect(500);
    const [failure] = await t.db.query(
      'SELECT "eventId" FROM webhook_failures WHERE "eventId" = $1',
      [event.id],
    );
    expect(failure).toBeDefined();
    const entries = await t.db.query('SELECT 1 FROM credit_transactions WHERE reference = $1', [
      pi.id,
    ]);
    expect(entries).toHaveLength(0);
  });
});
