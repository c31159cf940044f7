import { spawnSync } from 'node:child_process';
import { Client } from 'pg';
import { OpenAiTestServer } from '../servers/openai-server';
import { paymentIntentObject, signatureFor, stripeEvent } from '../servers/stripe-events';
import { StripeTestServer } from '../servers/stripe-server';
import { verifyInMailDir } from '../support/accounts';
import type { SpawnedApp } from '../support/spawn-app';
import { startTwoInstances, stopInstance } from './instances';

/**
 * `npm run test:cluster`: two service instances (child processes) on different ports against
 * one PostgreSQL, hit concurrently. Proves that the state that matters is shared: credit holds,
 * webhook idempotency and (when a Redis answers on 127.0.0.1:6379) the login rate limit.
 * Without Redis the rate-limit check is not registered; a log line says so.
 */

const RUN = `${process.pid}-${Date.now()}`;
const WEBHOOK_SECRET = 'whsec_cluster_test';
const PASSWORD = 'cluster password 1';
/** Hold for this gpt-4o request: ceil((2 estimated + 1000 max) * 0.00001 * 1000) = 11 credits. */
const ASK = { modelId: 'gpt-4o', messages: [{ role: 'user', content: 'Tell me' }] };
const HOLD = 11;
const ADMITTED = 5;
/** The machine's Redis; CLUSTER_REDIS_PORT overrides the port (e.g. to try the run without it). */
const REDIS = { host: '127.0.0.1', port: Number(process.env.CLUSTER_REDIS_PORT ?? 6379) };

/**
 * Whether something accepts TCP connections on host:port within 500 ms. Synchronous (a child
 * node process), because jest registers tests synchronously and the Redis check is registered
 * only when Redis answers.
 */
function answersSync(host: string, port: number): boolean {
  const probe = `require('net').connect(${port}, '${host}')
    .on('connect', () => process.exit(0)).on('error', () => process.exit(1))
    .setTimeout(500, () => process.exit(1));`;
  return spawnSync(process.execPath, ['-e', probe], { timeout: 3000 }).status === 0;
}

/** SIGTERM, then SIGKILL after 10 s; resolves with the exit code (or signal name). */
// Decided before the tests are registered, so the Redis check exists only when Redis answers.
const withRedis = answersSync(REDIS.host, REDIS.port);
if (!withRedis)
  console.log(
    `test:cluster: no Redis on ${REDIS.host}:${REDIS.port}, so the cross-instance login ` +
      'rate-limit check is not registered (start Redis there to run it)',
  );

describe('several instances against one PostgreSQL', () => {
  let db: Client | undefined;
  const openai = new OpenAiTestServer();
  const stripe = new StripeTestServer();
  const apps: SpawnedApp[] = [];
  const bases: string[] = [];

  const post = (i: number, path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${bases[i % 2]}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  const signUp = async (email: string) => {
    const res = await post(0, '/api/auth/signup', { email, password: PASSWORD });
    expect(res.status).toBe(201);
    const { user, accessToken } = (await res.json()) as {
      user: { id: string };
      accessToken: string;
    };
    await verifyInMailDir(bases[0], apps[0].mailDir, email);
    return { id: user.id, auth: { authorization: `Bearer ${accessToken}` } };
  };

  const ledger = async (userId: string) => {
    const { rows } = await db!.query(
      `SELECT u.credits,
              (SELECT COALESCE(SUM(amount), 0)::int FROM credit_holds WHERE "userId" = u.id) AS held,
              (SELECT COALESCE(SUM(amount), 0)::int FROM credit_transactions WHERE "userId" = u.id) AS "ledgerSum"
       FROM users u WHERE u.id = $1`,
      [userId],
    );
    return rows[0] as { credits: number; held: number; ledgerSum: number };
  };

  beforeAll(async () => {
    // The one PostgreSQL (embedded, own directory and port): test/cluster/global-setup.ts.
    const databaseUrl = process.env.CLUSTER_PG_URL!;

    await openai.start();
    // Slow replies (4 s): no admitted request settles, returning credits, before all 40 arrive.
    openai.reply = { chunks: 2, chunkDelayMs: 2000 };
    await stripe.start();

    const env: Record<string, string | undefined> = {
      DATABASE_URL: databaseUrl,
      DB_POOL_SIZE: '10',
      AUTH_SECRET: 'cluster-test-secret-0123456789-0123456789',
      AUTH_RATE_LIMIT_PER_MINUTE: '3',
      SIGNUP_CREDITS: String(HOLD * ADMITTED),
      OPENAI_API_KEY: 'sk-test-openai',
      OPENAI_BASE_URL: openai.url,
      AI_RETRY_BASE_DELAY_MS: '5',
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: stripe.url,
      REDIS_URL: withRedis ? `redis://${REDIS.host}:${REDIS.port}` : undefined,
      // Keys of this run only: nothing global is read or flushed.
      REDIS_KEY_PREFIX: `cluster-test:${RUN}:`,
    };
    // The first instance batches the admission and settlement statements (the default), the
    // second sends each alone: batches and single statements share the rows and their locks.
    await startTwoInstances({ apps, bases }, env, (i) => ({
      BATCH_STATEMENTS: i === 0 ? 'true' : 'false',
    }));
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    // Both shut down cleanly on SIGTERM (the Redis connection and the pool close; no hang).
    const codes = await Promise.all(apps.map(stopInstance));
    await openai.stop().catch(() => undefined);
    await stripe.stop().catch(() => undefined);
    expect(codes).toEqual(apps.map(() => 0));
  }, 60_000);

  it(`admits exactly ${ADMITTED} of 40 parallel AI requests spread over both instances (one batching, one not)`, async () => {
    const u = await signUp(`cluster-ai-${RUN}@example.com`);
    // Warm both instances up (an instance's first requests are its slowest).
    for (const base of bases)
      expect((await fetch(`${base}/api/credits`, { headers: u.auth })).status).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const res = await post(i, '/api/ai/stream', ASK, u.auth);
        return { status: res.status, body: await res.text() };
      }),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(ADMITTED);
    expect(statuses.filter((s) => s === 402)).toHaveLength(40 - ADMITTED);
    for (const r of results.filter((x) => x.status === 402))
      expect(JSON.parse(r.body).code).toBe('INSUFFICIENT_CREDITS');
    // Both instances admitted and refused requests (the alternation reached both).
    expect(openai.requests).toHaveLength(ADMITTED);

    const after = await ledger(u.id);
    expect(after.held).toBe(0);
    expect(after.credits).toBeGreaterThanOrEqual(0);
    expect(after.credits + after.held).toBe(after.ledgerSum);
    // Each admitted reply cost ceil(30 * 0.00001 * 1000) = 1 credit.
    expect(after.credits).toBe(HOLD * ADMITTED - ADMITTED);
  });

  it('grants one purchase when the same webhook event reaches both instances at once', async () => {
    const u = await signUp(`cluster-webhook-${RUN}@example.com`);
    const before = await ledger(u.id);
    const event = stripeEvent(
      'payment_intent.succeeded',
      paymentIntentObject({
        amount: 500,
        metadata: { userId: u.id, credits: '500', type: 'credit_purchase' },
      }),
    );
    const payload = JSON.stringify(event);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(i, '/api/webhooks/payment', payload, {
          'stripe-signature': signatureFor(payload, WEBHOOK_SECRET),
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const { rows } = await db!.query(
      `SELECT amount FROM credit_transactions WHERE "userId" = $1 AND type = 'PURCHASE'`,
      [u.id],
    );
    expect(rows).toEqual([{ amount: 500 }]);
    const after = await ledger(u.id);
    expect(after.credits).toBe(before.credits + 500);
    expect(after.credits + after.held).toBe(after.ledgerSum);
  });

  // Registered only when Redis answers (see `withRedis`); otherwise a log line says why.
  if (withRedis) {
    it('counts login attempts across instances: the 4th (alternating) gets 429', async () => {
      const email = `cluster-login-${RUN}@example.com`;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await post(i, '/api/auth/login', { email, password: 'wrong password' });
        statuses.push(res.status);
      }
      expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
      expect(statuses[3]).toBe(429);
    });
  }
});
