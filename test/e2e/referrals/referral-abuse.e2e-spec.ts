import { chargeObject, deliver, invoiceObject, stripeEvent } from '../../servers/stripe-events';
import { StripeTestServer } from '../../servers/stripe-server';
import { chargeOf } from '../../servers/stripe-wallets';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { signUpReferred, verifyFromMailFile } from '../../support/accounts';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'whsec_test_local';

/**
 * Farming referral rewards with throwaway accounts: a reward costs at least REFERRAL_MIN_PAYMENT
 * (5 USD, or 35.72 CNY at 100 and 14 credits per unit), and any refund of the rewarding payment,
 * however small, takes it back once.
 */
describe('Referral rewards: a minimum first payment, reversed by any refund', () => {
  let t: TestApp;
  let admin: TestUser;
  const stripe = new StripeTestServer();
  const send = (event: Record<string, unknown>) => deliver(t.http, event, { secret: SECRET });
  const rewardsOf = (referrerId: string) =>
    t.db.query(
      `SELECT amount, reference FROM credit_transactions
       WHERE "userId" = $1 AND reference LIKE 'referral:%' ORDER BY "createdAt", id`,
      [referrerId],
    );
  const referralOf = async (referredId: string) =>
    (await t.db.query('SELECT status FROM referrals WHERE "referredId" = $1', [referredId]))[0]
      .status;

  /** A referrer and a friend who signed up with the referrer's code (verified unless false). */
  async function pair(verified = true): Promise<{ referrer: TestUser; friend: TestUser }> {
    const referrer = await newUser(t);
    const { code } = (await t.http.get('/api/referrals').set(referrer.auth).expect(200)).body;
    return { referrer, friend: await signUpReferred(t, code, verified) };
  }

  /** Buys credits through the API (`body` as POST /api/credits/purchase takes it) and pays. */
  async function buy(u: TestUser, body: Record<string, unknown>) {
    const res = await t.http.post('/api/credits/purchase').set(u.auth).send(body).expect(200);
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
      CREDITS_PER_USD: '100',
      CREDITS_PER_CNY: '14',
    });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });

  it('a $0.50 purchase earns nothing; a $10 one does; a $0.49 refund of it reverses the reward once', async () => {
    const { referrer, friend } = await pair();
    await buy(friend, { amount: 0.5, credits: 50 });
    expect(await rewardsOf(referrer.user.id)).toEqual([]);
    expect(await referralOf(friend.user.id)).toBe('pending');

    const pi = await buy(friend, { amount: 10, credits: 1000 });
    expect(await rewardsOf(referrer.user.id)).toEqual([
      { amount: 100, reference: `referral:${friend.user.id}` },
    ]);
    expect((await ledgerOf(t, referrer.user.id)).credits).toBe(200);

    await t.http
      .post('/api/payment/refund')
      .set(admin.auth)
      .send({ paymentIntentId: pi.id, amount: 0.49 })
      .expect(200);
    const partial = stripeEvent(
      'charge.refunded',
      chargeObject({ paymentIntent: pi.id, amount: 1000, amountRefunded: 49 }),
    );
    await send(partial).expect(200);
    await send(partial).expect(200); // redelivered
    await send(
      stripeEvent(
        'charge.refunded',
        chargeObject({ paymentIntent: pi.id, amount: 1000, amountRefunded: 1000 }),
      ),
    ).expect(200); // a later full refund: nothing more
    expect(await rewardsOf(referrer.user.id)).toEqual([
      { amount: 100, reference: `referral:${friend.user.id}` },
      { amount: -100, reference: `referral:${friend.user.id}:reversal` },
    ]);
    expect(await referralOf(friend.user.id)).toBe('reversed');
    expect(await ledgerOf(t, referrer.user.id)).toMatchObject({ credits: 100, ledgerSum: 100 });
    const overview = await t.http.get('/api/referrals').set(referrer.auth).expect(200);
    expect(overview.body).toMatchObject({ rewarded: 0, creditsEarned: 0 });
  });

  it('an unverified friend earns the referrer nothing; their first payment after verifying does', async () => {
    const { referrer, friend } = await pair(false);
    await buy(friend, { amount: 10, credits: 1000 });
    expect(await rewardsOf(referrer.user.id)).toEqual([]);
    expect(await referralOf(friend.user.id)).toBe('pending');

    const [{ email }] = await t.db.query('SELECT email FROM users WHERE id = $1', [friend.user.id]);
    await verifyFromMailFile(t, email);
    await buy(friend, { amount: 5, credits: 500 });
    expect(await rewardsOf(referrer.user.id)).toEqual([
      { amount: 100, reference: `referral:${friend.user.id}` },
    ]);
  });

  it('in CNY the minimum is its equivalent at the credit rates: 35.71 earns nothing, 35.72 does', async () => {
    const { referrer, friend } = await pair();
    await buy(friend, { amount: 35.71, credits: 499, currency: 'cny' });
    expect(await rewardsOf(referrer.user.id)).toEqual([]);
    await buy(friend, { amount: 35.72, credits: 500, currency: 'cny' });
    expect(await rewardsOf(referrer.user.id)).toHaveLength(1);
  });

  it('a subscription first invoice under the minimum earns nothing', async () => {
    const { referrer, friend } = await pair();
    await t.db.query('UPDATE users SET "paymentCustomerId" = $2 WHERE id = $1', [
      friend.user.id,
      'cus_small_sub',
    ]);
    const invoice = invoiceObject({
      customer: 'cus_small_sub',
      billing_reason: 'subscription_create',
      amount_due: 99,
      amount_paid: 99,
      payment_intent: 'pi_small_invoice',
    });
    await send(stripeEvent('invoice.paid', invoice)).expect(200);
    expect(await rewardsOf(referrer.user.id)).toEqual([]);
    expect(await referralOf(friend.user.id)).toBe('pending');
  });

  it('a WeChat Pay partial refund reverses the reward once it has succeeded', async () => {
    const { referrer, friend } = await pair();
    const pi = await buy(friend, { amount: 50, credits: 700, paymentMethod: 'wechat_pay' });
    expect(await rewardsOf(referrer.user.id)).toHaveLength(1);
    const res = await t.http
      .post('/api/payment/refund')
      .set(admin.auth)
      .send({ paymentIntentId: pi.id, amount: 1 })
      .expect(200);
    await send(stripeEvent('charge.refunded', chargeOf(stripe.paymentIntents.get(pi.id)!))).expect(
      200,
    );
    expect(await referralOf(friend.user.id)).toBe('rewarded'); // only requested so far
    const settled = stripeEvent(
      'charge.refund.updated',
      stripe.settleRefund(res.body.refund.id, 'succeeded'),
    );
    await send(settled).expect(200);
    await send({ ...settled, id: `${settled.id}_again` }).expect(200);
    expect(await referralOf(friend.user.id)).toBe('reversed');
    expect(await ledgerOf(t, referrer.user.id)).toMatchObject({ credits: 100, ledgerSum: 100 });
  });

  it('keeps users.credits + Σ open holds = Σ ledger for every user', async () => {
    const broken = await t.db.query(
      `SELECT u.id FROM users u
       WHERE u.credits < 0 OR u.credits + (SELECT COALESCE(SUM(amount), 0) FROM credit_holds h
         WHERE h."userId" = u.id) <> (SELECT COALESCE(SUM(amount), 0) FROM credit_transactions ct
         WHERE ct."userId" = u.id)`,
    );
    expect(broken).toEqual([]);
  });
});
