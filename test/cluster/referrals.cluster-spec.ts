import { Client } from 'pg';
import {
  checkoutSessionObject,
  paymentIntentObject,
  signatureFor,
  stripeEvent,
} from '../servers/stripe-events';
import { StripeTestServer } from '../servers/stripe-server';
import { verifyInMailDir } from '../support/accounts';
import type { SpawnedApp } from '../support/spawn-app';
import { startTwoInstances, stopInstance } from './instances';

/**
 * Referral rewards on two instances against one PostgreSQL: a referral reward is granted once when the
 * events of one payment (intent and checkout session, each redelivered) reach both instances at
 * once, and once when two different first payments of the same user race.
 */

const RUN = `${process.pid}-${Date.now()}`;
const WEBHOOK_SECRET = 'whsec_cluster_referrals';
const PASSWORD = 'cluster password 1';

describe('referral rewards across instances', () => {
  let db: Client | undefined;
  const stripe = new StripeTestServer();
  const apps: SpawnedApp[] = [];
  const bases: string[] = [];

  const post = (i: number, path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${bases[i % 2]}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const signUp = async (email: string, referralCode?: string) => {
    const res = await post(1, '/api/auth/signup', { email, password: PASSWORD, referralCode });
    expect(res.status).toBe(201);
    const { user, accessToken } = (await res.json()) as {
      user: { id: string };
      accessToken: string;
    };
    await verifyInMailDir(bases[1], apps[1].mailDir, email);
    return { id: user.id, auth: { authorization: `Bearer ${accessToken}` } };
  };
  const deliverEverywhere = (events: Record<string, unknown>[]) =>
    Promise.all(
      events.map((event, i) => {
        const payload = JSON.stringify(event);
        return post(i, '/api/webhooks/payment', payload, {
          'stripe-signature': signatureFor(payload, WEBHOOK_SECRET),
        });
      }),
    );
  const purchaseIntent = (userId: string, credits: number) =>
    paymentIntentObject({
      amount: credits,
      metadata: { userId, credits: String(credits), type: 'credit_purchase' },
    });
  const rewards = async (referrerId: string) =>
    (
      await db!.query(
        `SELECT amount FROM credit_transactions WHERE "userId" = $1 AND reference LIKE 'referral:%'`,
        [referrerId],
      )
    ).rows;
  const balanced = async (userId: string) => {
    const { rows } = await db!.query(
      `SELECT u.credits, (SELECT COALESCE(SUM(amount), 0)::int FROM credit_transactions
         WHERE "userId" = u.id) AS "ledgerSum" FROM users u WHERE u.id = $1`,
      [userId],
    );
    expect(rows[0].credits).toBe(rows[0].ledgerSum);
  };
  /** A referrer and a friend who signed up with the referrer's code. */
  const pair = async (name: string) => {
    const referrer = await signUp(`cluster-${name}-referrer-${RUN}@example.com`);
    const overview = await fetch(`${bases[0]}/api/referrals`, { headers: referrer.auth });
    const { code } = (await overview.json()) as { code: string };
    const friend = await signUp(`cluster-${name}-friend-${RUN}@example.com`, code);
    return { referrer, friend };
  };

  beforeAll(async () => {
    const databaseUrl = process.env.CLUSTER_PG_URL!;
    await stripe.start();
    const env: Record<string, string | undefined> = {
      DATABASE_URL: databaseUrl,
      DB_POOL_SIZE: '10',
      AUTH_SECRET: 'cluster-test-secret-0123456789-0123456789',
      AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: stripe.url,
      REFERRAL_REWARD: '100',
    };
    await startTwoInstances({ apps, bases }, env);
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    await Promise.all(apps.map(stopInstance));
    await stripe.stop().catch(() => undefined);
  }, 60_000);

  it('rewards once for the intent and checkout events of one payment on both instances', async () => {
    const { referrer, friend } = await pair('events');
    const pi = purchaseIntent(friend.id, 500); // $5: the referral minimum
    const session = checkoutSessionObject({
      mode: 'payment',
      clientReferenceId: friend.id,
      paymentIntent: pi.id,
      amountTotal: 500,
      metadata: { type: 'credit_purchase', credits: '500' },
    });
    const events = Array.from({ length: 10 }, (_, i) =>
      i % 2
        ? stripeEvent('payment_intent.succeeded', pi)
        : stripeEvent('checkout.session.completed', session),
    );
    const answers = await deliverEverywhere([...events, ...events]);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(await rewards(referrer.id)).toEqual([{ amount: 100 }]);
    await balanced(referrer.id);
    await balanced(friend.id);
  });

  it('rewards once when two different first payments of one friend race', async () => {
    const { referrer, friend } = await pair('payments');
    const events = Array.from({ length: 6 }, () =>
      stripeEvent('payment_intent.succeeded', purchaseIntent(friend.id, 500)),
    );
    const answers = await deliverEverywhere(events);
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(await rewards(referrer.id)).toEqual([{ amount: 100 }]);
    const { rows } = await db!.query(
      `SELECT count(*)::int AS n FROM credit_transactions WHERE "userId" = $1 AND type = 'PURCHASE'`,
      [friend.id],
    );
    expect(rows[0].n).toBe(6);
    await balanced(referrer.id);
    await balanced(friend.id);
  });
});
