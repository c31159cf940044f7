import { DataSource } from 'typeorm';
import { CreditsService } from '../../../src/credits/credits.service';
import { ReferralsService } from '../../../src/referrals/referrals.service';
import { OAuthTestServer } from '../../servers/oauth-server';
import {
  chargeObject,
  checkoutSessionObject,
  deliver,
  invoiceObject,
  stripeEvent,
} from '../../servers/stripe-events';
import { StripeTestServer } from '../../servers/stripe-server';
import { ledgerOf, newUser, PASSWORD, type TestUser } from '../../support/factories';
import { oauthDance } from '../../support/oauth-browser';
import { verifyFromMailFile } from '../../support/accounts';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'whsec_test_local';

describe('Referral rewards: granted once on the first qualifying payment, capped, reversed', () => {
  let t: TestApp;
  const stripe = new StripeTestServer();
  const oauth = new OAuthTestServer();
  const send = (event: Record<string, unknown>) => deliver(t.http, event, { secret: SECRET });
  const uniq = () => `friend-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const overview = async (u: TestUser) =>
    (await t.http.get('/api/referrals').set(u.auth).expect(200)).body;
  const bonuses = (userId: string) =>
    t.db.query(
      `SELECT amount, reference FROM credit_transactions
       WHERE "userId" = $1 AND type = 'BONUS' AND reference LIKE 'referral:%' ORDER BY "createdAt"`,
      [userId],
    );

  /**
   * Signs up through the API with `referralCode` and follows the verification link (the
   * bonuses wait for it); returns the user with a token.
   */
  async function signup(referralCode?: string, name = 'Ada Lovelace'): Promise<TestUser> {
    const email = uniq();
    const res = await t.http
      .post('/api/auth/signup')
      .send({ email, password: PASSWORD, name, referralCode })
      .expect(201);
    await verifyFromMailFile(t, email);
    return {
      user: res.body.user,
      token: res.body.accessToken,
      auth: { Authorization: `Bearer ${res.body.accessToken}` },
    };
  }

  /** Buys `usd` worth of credits by card through the API and delivers the webhook; the intent. */
  async function buy(u: TestUser, usd = 5) {
    await t.http
      .post('/api/credits/purchase')
      .set(u.auth)
      .send({ amount: usd, credits: usd * 100 })
      .expect(200);
    const pi = stripe.succeedPaymentIntent([...stripe.paymentIntents.keys()].pop()!);
    await send(stripeEvent('payment_intent.succeeded', pi)).expect(200);
    return pi;
  }

  beforeAll(async () => {
    await Promise.all([stripe.start(), oauth.start()]);
    t = await createTestApp({
      ...oauth.env(),
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_API_BASE: stripe.url,
      REFERRAL_SIGNUP_BONUS: '25',
      REFERRAL_REWARD: '100',
      REFERRAL_MONTHLY_CAP: '2',
    });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([stripe.stop(), oauth.stop()]);
  });

  it('every user has one stable 8-character code and a link in their locale', async () => {
    const u = await newUser(t);
    const first = await overview(u);
    expect(first).toEqual({
      code: expect.stringMatching(/^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$/),
      link: `http://localhost:3000/en/signup?ref=${first.code}`,
      invited: 0,
      rewarded: 0,
      creditsEarned: 0,
      recent: [],
    });
    const zh = await t.http.get('/api/referrals').set(u.auth).set('Accept-Language', 'zh-CN');
    expect(zh.body.code).toBe(first.code);
    expect(zh.body.link).toBe(`http://localhost:3000/zh/signup?ref=${first.code}`);
    const codes = await Promise.all([1, 2, 3].map(async () => (await overview(u)).code));
    expect(new Set(codes)).toEqual(new Set([first.code]));
  });

  it('the whole lifecycle: sign-up with a code, first purchase rewards once, a refund reverses it', async () => {
    const referrer = await newUser(t, { name: 'Rita Referrer' });
    const { code } = await overview(referrer);
    const friend = await signup(code.toLowerCase());
    expect(await ledgerOf(t, friend.user.id)).toEqual({ credits: 125, ledgerSum: 125, entries: 2 });
    expect((await overview(referrer)).recent).toEqual([
      { name: 'A***', joinedAt: expect.any(String), status: 'pending' },
    ]);

    const pi = await buy(friend, 5);
    expect(await bonuses(referrer.user.id)).toEqual([
      { amount: 100, reference: `referral:${friend.user.id}` },
    ]);
    await buy(friend, 3); // a second purchase: no second reward
    await send(stripeEvent('payment_intent.succeeded', pi)).expect(200); // a redelivery neither
    expect((await ledgerOf(t, referrer.user.id)).credits).toBe(200);

    const body = await overview(referrer);
    expect(body).toMatchObject({ invited: 1, rewarded: 1, creditsEarned: 100 });
    expect(body.recent[0].status).toBe('rewarded');
    expect(JSON.stringify(body)).not.toContain(friend.user.email);
    expect(JSON.stringify(body)).not.toContain(friend.user.id);

    // The referrer spends most of it; the refund (partial is enough) takes back what is left,
    // noting the rest; the full refund after it takes nothing more.
    await t.app.get(CreditsService).consume(referrer.user.id, 170, 'spent');
    const half = chargeObject({ paymentIntent: pi.id, amount: 500, amountRefunded: 250 });
    await send(stripeEvent('charge.refunded', half)).expect(200);
    await send(stripeEvent('charge.refunded', half)).expect(200);
    const full = chargeObject({ paymentIntent: pi.id, amount: 500, amountRefunded: 500 });
    await send(stripeEvent('charge.refunded', full)).expect(200);
    const [reversal] = await t.db.query(
      `SELECT amount, description FROM credit_transactions WHERE reference = $1`,
      [`referral:${friend.user.id}:reversal`],
    );
    expect(reversal.amount).toBe(-30);
    expect(reversal.description).toContain('shortfall of 70 credits');
    expect(await ledgerOf(t, referrer.user.id)).toMatchObject({ credits: 0, ledgerSum: 0 });
    expect(await overview(referrer)).toMatchObject({
      rewarded: 0,
      creditsEarned: 70,
      recent: [expect.objectContaining({ status: 'reversed' })],
    });
    // Reversed for good: a later purchase does not reward again.
    await buy(friend, 10);
    expect((await ledgerOf(t, referrer.user.id)).credits).toBe(0);
  });

  it('an unknown code is ignored without an error, and sign-up without one works as before', async () => {
    const plain = await signup('ZZZZZZZZ');
    expect(await ledgerOf(t, plain.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
    for (const bad of ['', 'short', '0OIL1234', 'x'.repeat(64)]) await signup(bad);
    const bodyTooLong = await t.http
      .post('/api/auth/signup')
      .send({ email: uniq(), password: PASSWORD, referralCode: 'x'.repeat(65) });
    expect(bodyTooLong.status).toBe(400);
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM referrals');
    expect(n).toBe(1); // only the lifecycle test's
  });

  it('refuses self-referral and never re-points a referral', async () => {
    const a = await newUser(t);
    const b = await newUser(t);
    const referrals = t.app.get(ReferralsService);
    const { code: codeA } = await overview(a);
    const { code: codeB } = await overview(b);
    const attach = (userId: string, code: string) =>
      t.app.get(DataSource).transaction((m) => referrals.attachAtSignup(userId, code, m));
    expect(await attach(a.user.id, codeA)).toBe(false);
    await expect(
      t.db.query('INSERT INTO referrals ("referredId", "referrerId") VALUES ($1, $1)', [a.user.id]),
    ).rejects.toThrow(/CHK_referrals_not_self/);

    const friend = await signup(codeA);
    expect(await attach(friend.user.id, codeB)).toBe(false);
    const [row] = await t.db.query('SELECT "referrerId" FROM referrals WHERE "referredId" = $1', [
      friend.user.id,
    ]);
    expect(row.referrerId).toBe(a.user.id);
    expect((await ledgerOf(t, friend.user.id)).credits).toBe(125); // one sign-up bonus
  });

  it('rewards once when the intent and the checkout session of one payment race', async () => {
    const referrer = await newUser(t);
    const friend = await signup((await overview(referrer)).code);
    const pi = stripe.succeedPaymentIntent(
      (
        await t.http
          .post('/api/credits/purchase')
          .set(friend.auth)
          .send({ amount: 5, credits: 500 })
          .expect(200)
      ).body.clientSecret.split('_secret_')[0],
    );
    const session = checkoutSessionObject({
      mode: 'payment',
      clientReferenceId: friend.user.id,
      paymentIntent: pi.id,
      amountTotal: 500,
      metadata: { type: 'credit_purchase', credits: '500' },
    });
    const answers = await Promise.all([
      send(stripeEvent('payment_intent.succeeded', pi)),
      send(stripeEvent('checkout.session.completed', session)),
      send(stripeEvent('payment_intent.succeeded', pi)),
      send(stripeEvent('checkout.session.completed', session)),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(await bonuses(referrer.user.id)).toHaveLength(1);
    expect(await ledgerOf(t, friend.user.id)).toMatchObject({ credits: 625, ledgerSum: 625 });
  });

  it('holds the monthly cap per referrer; a capped referral stays pending', async () => {
    const referrer = await newUser(t);
    const { code } = await overview(referrer);
    const friends = [await signup(code), await signup(code), await signup(code)];
    for (const f of friends) await buy(f, 5);
    expect(await bonuses(referrer.user.id)).toHaveLength(2);
    const body = await overview(referrer);
    expect(body).toMatchObject({ invited: 3, rewarded: 2, creditsEarned: 200 });
    expect(body.recent.map((r: { status: string }) => r.status).sort()).toEqual([
      'pending',
      'rewarded',
      'rewarded',
    ]);
    // Last month's rewards do not count against this month.
    await t.db.query(
      `UPDATE referrals SET "rewardedAt" = "rewardedAt" - interval '40 days' WHERE "referrerId" = $1 AND status = 'rewarded'`,
      [referrer.user.id],
    );
    await buy(friends[2], 5);
    expect(await bonuses(referrer.user.id)).toHaveLength(3);
  });

  it("rewards a subscription's first paid invoice", async () => {
    const referrer = await newUser(t);
    const friend = await signup((await overview(referrer)).code);
    await t.db.query('UPDATE users SET "paymentCustomerId" = $2 WHERE id = $1', [
      friend.user.id,
      'cus_referred_1',
    ]);
    const invoice = (fields: Record<string, unknown>) =>
      stripeEvent(
        'invoice.paid',
        invoiceObject({
          customer: 'cus_referred_1',
          subscription: 'sub_1',
          payment_intent: 'pi_invoice_1',
          ...fields,
        }),
      );
    await send(invoice({ billing_reason: 'subscription_cycle' })).expect(200);
    await send(invoice({ billing_reason: 'subscription_create', amount_paid: 0 })).expect(200);
    expect(await bonuses(referrer.user.id)).toHaveLength(0);
    await send(invoice({ billing_reason: 'subscription_create' })).expect(200);
    await send(invoice({ billing_reason: 'subscription_create' })).expect(200);
    expect(await bonuses(referrer.user.id)).toEqual([
      { amount: 100, reference: `referral:${friend.user.id}` },
    ]);
    // The first invoice refunded in part: the reward goes back.
    const refund = chargeObject({
      paymentIntent: 'pi_invoice_1',
      amount: 999,
      amountRefunded: 100,
    });
    await send(stripeEvent('charge.refunded', refund)).expect(200);
    expect(await ledgerOf(t, referrer.user.id)).toMatchObject({ credits: 100, ledgerSum: 100 });
    expect((await overview(referrer)).recent[0].status).toBe('reversed');
  });

  it('social sign-in carries ?ref= through the state cookie to the new account', async () => {
    const referrer = await newUser(t);
    const { code } = await overview(referrer);
    const email = uniq();
    oauth.asGoogle('g-ref-1', email);
    const dance = await oauthDance(t.http, oauth, 'google', { ref: code });
    expect(dance.session).toBeDefined();
    const [created] = await t.db.query('SELECT id FROM users WHERE email = $1', [email]);
    const [row] = await t.db.query('SELECT "referrerId" FROM referrals WHERE "referredId" = $1', [
      created.id,
    ]);
    expect(row.referrerId).toBe(referrer.user.id);
    expect((await ledgerOf(t, created.id)).credits).toBe(125);

    // An existing account signing in through a link is not re-pointed (nor self-referred).
    const other = await newUser(t);
    oauth.asGoogle('g-ref-1', email);
    await oauthDance(t.http, oauth, 'google', { ref: (await overview(other)).code });
    const rows = await t.db.query('SELECT "referrerId" FROM referrals WHERE "referredId" = $1', [
      created.id,
    ]);
    expect(rows).toEqual([{ referrerId: referrer.user.id }]);
  });

  it('keeps credits = Σ ledger for every user after all of it', async () => {
    const rows = await t.db.query(
      `SELECT u.credits, COALESCE((SELECT SUM(amount) FROM credit_transactions c WHERE c."userId" = u.id), 0)::int AS ledger,
              COALESCE((SELECT SUM(amount) FROM credit_holds h WHERE h."userId" = u.id), 0)::int AS held
       FROM users u`,
    );
    for (const r of rows) expect(r.credits + r.held).toBe(r.ledger);
  });
});
