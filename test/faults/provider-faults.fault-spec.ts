import type { AddressInfo } from 'node:net';
import { ledgerOf, newUser, type TestUser } from '../support/factories';
import { providerEnv } from '../support/providers';
import { AnthropicTestServer } from '../servers/anthropic-server';
import { GeminiTestServer } from '../servers/gemini-server';
import { createTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';
import { FaultyOpenAiServer } from './support/faulty-providers';
import { call, openStream, parseSse } from './support/http';

/**
 * Production heartbeat: a `: ping` every 15 s before the first token, against proxies that cut
 * a connection idle for 60 s; the fault tested is a 90 s silence. Scaled by 1/60 so the test
 * takes seconds: ping every 250 ms, the "proxy" (our client) cuts after 1 000 ms idle, and the
 * provider stays silent for 1 500 ms. The ratios (silence 6 pings long, idle limit 4 pings) are
 * the production ones.
 */
const SCALE = 1 / 60;
const PING_MS = 15_000 * SCALE; // 250
const PROXY_IDLE_MS = 60_000 * SCALE; // 1 000
const SILENCE_MS = 90_000 * SCALE; // 1 500

/**
 * Provider faults (docs/testing.md, fault tests), through the whole service (HTTP in, real SDKs out
 * to local servers speaking each provider's protocol). Each case checks the documented status
 * (README "AI replies" steps 3–4) and the charge in the ledger.
 */
describe('provider faults: documented status and charge', () => {
  let t: TestApp;
  let base: string;
  const openai = new FaultyOpenAiServer();
  const anthropic = new AnthropicTestServer();
  const gemini = new GeminiTestServer();
  const servers = { openai, anthropic, gemini };
  const prompt = (content = 'Tell me') => [{ role: 'user', content }];

  /** The user's CONSUMPTION entries, oldest first. */
  const consumptions = (u: TestUser) =>
    t.db.query(
      `SELECT amount, description FROM credit_transactions
       WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt"`,
      [u.user.id],
    );
  const openHolds = async () =>
    (await t.db.query('SELECT count(*)::int AS n FROM credit_holds'))[0].n as number;

  beforeAll(async () => {
    await Promise.all(Object.values(servers).map((s) => s.start()));
    t = await createTestApp({ ...providerEnv(servers), AI_SSE_PING_MS: String(PING_MS) });
    const server = t.app.getHttpServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t.close();
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  });
  beforeEach(() => {
    for (const s of Object.values(servers)) {
      s.reset();
      s.script = [];
    }
  });
  afterEach(async () => {
    expect(await openHolds()).toBe(0);
  });

  describe.each([
    ['gpt-4o', 'openai'],
    ['claude-haiku-4-5', 'anthropic'],
    ['gemini-2.5-flash', 'gemini'],
  ] as const)('%s', (modelId, provider) => {
    it('429 with Retry-After: waits as told, then 200 and charges the reply once', async () => {
      const u = await newUser(t);
      servers[provider].script = [{ status: 429, retryAfter: '1' }];
      const started = Date.now();
      const res = await t.http
        .post('/api/ai/generate')
        .set(u.auth)
        .send({ modelId, messages: prompt() });
      expect(res.status).toBe(200);
      // Retry-After (1 s) beats the 5 ms backoff base.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(servers[provider].requests).toHaveLength(2);
      expect(await consumptions(u)).toEqual([
        { amount: -res.body.cost, description: expect.not.stringMatching(/estimated/) },
      ]);
      expect(res.body.cost).toBeGreaterThan(0);
      expect(await ledgerOf(t, u.user.id)).toMatchObject({ credits: 100 - res.body.cost });
    });

    it('500 then success: 200 after one retry, charged once', async () => {
      const u = await newUser(t);
      servers[provider].script = [{ status: 500 }];
      const res = await t.http
        .post('/api/ai/generate')
        .set(u.auth)
        .send({ modelId, messages: prompt() });
      expect(res.status).toBe(200);
      expect(servers[provider].requests).toHaveLength(2);
      expect((await consumptions(u)).map((c: { amount: number }) => c.amount)).toEqual([
        -res.body.cost,
      ]);
    });
  });

  it('429 on every attempt: 429 RATE_LIMIT after 3 attempts, nothing charged', async () => {
    const u = await newUser(t);
    openai.reply = { status: 429, retryAfter: '0' };
    const res = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId: 'gpt-4o', messages: prompt() });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: expect.any(String), code: 'RATE_LIMIT' });
    expect(openai.requests).toHaveLength(3);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
  });

  it('500 on every attempt: 500 SERVICE_UNAVAILABLE (the spec classification), nothing charged', async () => {
    const u = await newUser(t);
    openai.reply = { status: 500 };
    const res = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId: 'gpt-4o', messages: prompt() });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: expect.any(String), code: 'SERVICE_UNAVAILABLE' });
    expect(openai.requests).toHaveLength(3);
    expect(await consumptions(u)).toEqual([]);
  });

  it('500 then success on a stream: retried before the first byte, 200 with the whole text', async () => {
    const u = await newUser(t);
    openai.script = [{ status: 500 }];
    openai.reply = { usage: { prompt_tokens: 600, completion_tokens: 300 } };
    const res = await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .send({ modelId: 'gpt-4o', messages: prompt() });
    expect(res.status).toBe(200);
    expect(res.text).toBe('Hello from the test model.');
    expect(openai.requests).toHaveLength(2);
    // 900 tokens × 0.00001 × 1000 = 9 credits, from the reported usage.
    expect((await consumptions(u)).map((c: { amount: number }) => c.amount)).toEqual([-9]);
  });

  describe('connection reset mid-stream (TCP RST after 2 of 4 chunks)', () => {
    // 400 characters of prompt → 100 estimated tokens; 2 × 100 characters streamed → 50.
    // Charged ceil((100 + 50) × 0.00001 × 1000) = 2 credits, marked estimated (no usage came).
    const long = 'x'.repeat(400);
    const text = ['a', 'b', 'c', 'd'].map((c) => c.repeat(100)).join('');
    const cut = { text, chunks: 4, resetAfterChunks: 2 };

    it('text/plain: 200 with the partial text, charged for it as estimated, partial reply saved', async () => {
      const u = await newUser(t);
      openai.reply = cut;
      const res = await call(base, 'POST', '/api/ai/stream', {
        headers: u.auth,
        body: { modelId: 'gpt-4o', messages: prompt(long) },
      });
      expect(res.status).toBe(200);
      expect(res.text).toBe(text.slice(0, 200));
      expect(openai.requests).toHaveLength(1); // never retried after the first byte
      expect(await consumptions(u)).toEqual([
        { amount: -2, description: expect.stringMatching(/\(estimated: stream interrupted\)/) },
      ]);
      const [saved] = await t.db.query(
        `SELECT m.content FROM messages m WHERE m."chatId" = $1 AND m.role = 'ASSISTANT'`,
        [res.headers['x-chat-id']],
      );
      expect(saved.content).toBe(text.slice(0, 200));
      expect(await ledgerOf(t, u.user.id)).toMatchObject({ credits: 98, ledgerSum: 98 });
    });

    it('SSE: the deltas, then one error event (no done), charged as estimated', async () => {
      const u = await newUser(t);
      openai.reply = cut;
      const res = await call(base, 'POST', '/api/ai/stream', {
        headers: { ...u.auth, accept: 'text/event-stream' },
        body: { modelId: 'gpt-4o', messages: prompt(long) },
      });
      expect(res.status).toBe(200);
      const { events } = parseSse(res.text);
      expect(events.map(([e]) => e)).toEqual(['delta', 'delta', 'error']);
      expect(events[2][1]).toEqual({ error: expect.any(String), code: 'UNKNOWN_ERROR' });
      expect(await consumptions(u)).toEqual([
        { amount: -2, description: expect.stringMatching(/estimated/) },
      ]);
    });

    it('before the first token: retried like any network error, then charged normally', async () => {
      const u = await newUser(t);
      openai.script = [{ resetAfterChunks: 0 }];
      const res = await t.http
        .post('/api/ai/stream')
        .set(u.auth)
        .send({ modelId: 'gpt-4o', messages: prompt() });
      expect(res.status).toBe(200);
      expect(res.text).toBe('Hello from the test model.');
      expect(openai.requests).toHaveLength(2);
      expect(await consumptions(u)).toEqual([
        { amount: -1, description: expect.not.stringMatching(/estimated/) },
      ]);
    });
  });

  describe(`a long silence before the first token (90 s scaled to ${SILENCE_MS} ms)`, () => {
    it(`SSE: pings every ${PING_MS} ms keep a proxy with a ${PROXY_IDLE_MS} ms idle limit from cutting; done and charged`, async () => {
      const u = await newUser(t);
      openai.reply = {
        silenceBeforeFirstMs: SILENCE_MS,
        usage: { prompt_tokens: 600, completion_tokens: 300 },
      };
      const s = await openStream(
        base,
        '/api/ai/stream',
        { modelId: 'gpt-4o', messages: prompt() },
        { ...u.auth, accept: 'text/event-stream' },
        PROXY_IDLE_MS,
      );
      expect(s.status).toBe(200);
      expect(await s.ended).toBe('end');
      const { events, comments } = parseSse(s.received());
      // At least the immediate ping plus one per interval of the silence.
      expect(comments.length).toBeGreaterThanOrEqual(SILENCE_MS / PING_MS);
      expect(Math.max(...s.gaps)).toBeLessThan(PROXY_IDLE_MS);
      expect(
        events
          .filter(([e]) => e === 'delta')
          .map(([, d]) => d.text)
          .join(''),
      ).toBe('Hello from the test model.');
      expect(events[events.length - 1]).toEqual([
        'done',
        {
          modelId: 'gpt-4o',
          usage: { promptTokens: 600, completionTokens: 300 },
          cost: 9,
          chatId: s.headers['x-chat-id'],
        },
      ]);
      expect((await consumptions(u)).map((c: { amount: number }) => c.amount)).toEqual([-9]);
    });

    it('text/plain has no heartbeat: the same proxy cuts it; the upstream is aborted and nothing is charged', async () => {
      const u = await newUser(t);
      openai.reply = { silenceBeforeFirstMs: SILENCE_MS };
      const cut = await openStream(
        base,
        '/api/ai/stream',
        { modelId: 'gpt-4o', messages: prompt() },
        u.auth,
        PROXY_IDLE_MS,
      ).then(
        () => 'answered',
        (err: Error) => err.message,
      );
      expect(cut).toMatch(/idle timeout/);
      expect(await waitFor(() => openai.requests[0]?.aborted === true)).toBe(true);
      expect(await waitFor(async () => (await openHolds()) === 0)).toBe(true);
      expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
    });
  });
});
