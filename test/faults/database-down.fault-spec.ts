import { rid, paymentIntentObject, signatureFor, stripeEvent } from '../servers/stripe-events';
import { OpenAiTestServer } from '../servers/openai-server';
import { EmbeddedPgDir, waitUntil } from './support/embedded-pg';
import { call } from './support/http';
import { booksOfAll, unbalanced } from './support/ledger';
import { killService, type Service, signUp, startService, WEBHOOK_SECRET } from './support/service';

/**
 * Database down (docs/testing.md, fault tests): the service runs as a child process on its own
 * embedded PostgreSQL; the test stops that server under it (fast shutdown, as an operator or a
 * crash of the database host would), checks that the service fails closed, then starts PostgreSQL
 * again on the same directory and port and checks that the same process recovers by itself.
 */
describe('database down: fail closed, recover without a restart', () => {
  let pg: EmbeddedPgDir;
  let svc: Service | undefined;
  const openai = new OpenAiTestServer();
  const ask = { modelId: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] };

  /** A signed `payment_intent.succeeded` for a credit purchase, as Stripe would send it. */
  const purchaseEvent = (userId: string, credits: number) =>
    stripeEvent('payment_intent.succeeded', {
      ...paymentIntentObject({
        amount: credits,
        metadata: { userId, credits: String(credits), type: 'credit_purchase' },
      }),
      id: rid('pi'),
    });
  const deliver = (base: string, event: Record<string, unknown>) => {
    const payload = JSON.stringify(event);
    return call(base, 'POST', '/api/webhooks/payment', {
      headers: {
        'content-type': 'application/json',
        'stripe-signature': signatureFor(payload, WEBHOOK_SECRET),
      },
      body: payload,
    });
  };

  beforeAll(async () => {
    await openai.start();
    pg = await EmbeddedPgDir.create();
  });
  afterAll(async () => {
    await killService(svc);
    await pg.cleanup();
    await openai.stop();
  });

  it('answers 503 while PostgreSQL is stopped, reaches no provider, makes Stripe retry, and recovers on restart', async () => {
    svc = await startService(pg, {
      OPENAI_API_KEY: 'sk-test-openai',
      OPENAI_BASE_URL: openai.url,
      AI_RETRY_BASE_DELAY_MS: '5',
    });
    const { base } = svc;
    const u = await signUp(base, 'down@example.com');
    const ok = await call(base, 'POST', '/api/ai/generate', { headers: u.auth, body: ask });
    expect(ok.status).toBe(200);
    expect(openai.requests).toHaveLength(1);

    // Stop PostgreSQL under the running service.
    await pg.stop('SIGINT');

    const ready = await call(base, 'GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.json).toMatchObject({ error: expect.any(String), code: 'NOT_READY' });
    expect((await call(base, 'GET', '/health/live')).status).toBe(200);

    // AI requests fail closed: 503 before any upstream call, whole, text stream and SSE alike.
    for (const [path, headers] of [
      ['/api/ai/generate', {}],
      ['/api/ai/stream', {}],
      ['/api/ai/stream', { accept: 'text/event-stream' }],
    ] as const) {
      const res = await call(base, 'POST', path, { headers: { ...u.auth, ...headers }, body: ask });
      expect({ path, status: res.status, body: res.json }).toEqual({
        path,
        status: 503,
        body: { error: expect.any(String), code: 'SERVICE_UNAVAILABLE' },
      });
    }
    expect(openai.requests).toHaveLength(1);

    // Other database-backed routes answer the same 503, not a 401 or a 500.
    const chats = await call(base, 'GET', '/api/chats', { headers: u.auth });
    expect(chats.status).toBe(503);
    expect(chats.json).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
    const login = await call(base, 'POST', '/api/auth/login', {
      body: { email: 'down@example.com', password: 'correct horse battery' },
    });
    expect({ status: login.status, code: login.json?.code }).toEqual({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    });

    // A verified webhook whose effect cannot be written answers 500, so Stripe retries it.
    const event = purchaseEvent(u.id, 250);
    const failed = await deliver(base, event);
    expect(failed.status).toBe(500);
    expect(failed.json).toEqual({ error: expect.any(String), code: 'WEBHOOK_HANDLER_FAILED' });

    // PostgreSQL comes back on the same directory and port; the same service process recovers.
    pg.start();
    await waitUntil(
      async () => (await call(base, 'GET', '/health/ready')).status === 200,
      60_000,
      '/health/ready 200 after the restart',
    );
    const again = await call(base, 'POST', '/api/ai/generate', { headers: u.auth, body: ask });
    expect(again.status).toBe(200);
    expect(again.json.cost).toBe(1);
    expect(openai.requests).toHaveLength(2);
    expect((await call(base, 'GET', '/api/chats', { headers: u.auth })).status).toBe(200);

    // Stripe's retry of the same event now grants, once; a further retry grants nothing.
    expect((await deliver(base, event)).status).toBe(200);
    expect((await deliver(base, event)).status).toBe(200);
    const purchases = await pg.query<{ amount: number }>(
      `SELECT amount FROM credit_transactions WHERE "userId" = $1 AND type = 'PURCHASE'`,
      [u.id],
    );
    expect(purchases).toEqual([{ amount: 250 }]);

    // The service was never restarted, and the books balance: 100 + 250 − 1 − 1.
    expect(svc.app.child.exitCode).toBeNull();
    const [books] = await booksOfAll((sql, p) => pg.query(sql, p));
    expect(books).toMatchObject({ credits: 348, held: 0, ledger: 348 });
    expect(await unbalanced((sql, p) => pg.query(sql, p))).toEqual([]);
  }, 300_000);
});
