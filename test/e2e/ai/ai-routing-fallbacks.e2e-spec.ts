import { unbalanced } from '../../faults/support/ledger';
import { routingCatalogue } from '../../support/catalogue';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { parseSse } from '../../support/sse';
import { createTestApp, type TestApp } from '../../support/test-app';

/** The routing catalogue: `route-a` falls back to `route-b` (no tools), then `route-c`. */
describe('AI routing: fallback models', () => {
  let t: TestApp;
  let p: Providers;
  // 'Say hello': 3 prompt tokens; with 100 reply tokens, holds of 11 (A), 21 (B) and 31 (C).
  const ask = (modelId = 'route-a') => ({
    modelId,
    maxTokens: 100,
    messages: [{ role: 'user', content: 'Say hello' }],
  });
  const consumption = (u: TestUser) =>
    t.db.query(
      `SELECT amount, description, "modelId" FROM credit_transactions
       WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.user.id],
    );
  const balanced = async () =>
    expect(await unbalanced((sql, params) => t.db.query(sql, params))).toEqual([]);

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, MODELS_FILE: routingCatalogue() });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  it('answers from the fallback when the model’s only upstream keeps failing, charged at the fallback’s price', async () => {
    const u = await newUser(t, { credits: 100 });
    p.openai.reply = { status: 500 };
    const res = await t.http.post('/api/ai/generate').set(u.auth).send(ask()).expect(200);
    // Anthropic's 10 + 20 tokens at 0.2 credit each.
    expect(res.body).toMatchObject({ modelId: 'route-b', cost: 6 });
    expect([p.openai.requests.length, p.anthropic.requests.length]).toEqual([1, 1]);
    expect(p.anthropic.requests[0].body.model).toBe('route-b');
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 94, ledgerSum: 94, entries: 2 });
    const [entry] = await consumption(u);
    expect(entry).toEqual({
      amount: -6,
      description: expect.stringContaining('route-b'),
      modelId: 'route-b',
    });
    await balanced();
  });

  it('holds the dearest candidate’s worst case: 21 credits for A with fallback B, refused at 20', async () => {
    // `models` names B only: A and B are the candidates, and B's worst case is the larger.
    const poor = await newUser(t, { credits: 20 });
    const refused = await t.http
      .post('/v1/chat/completions')
      .set(poor.auth)
      .send({
        model: 'route-a',
        models: ['route-b'],
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Say hello' }],
      })
      .expect(402);
    expect(refused.body.error.code).toBe('insufficient_credits');
    expect(p.openai.requests).toHaveLength(0);

    const enough = await newUser(t, { credits: 21 });
    p.openai.reply = { status: 503 };
    const res = await t.http
      .post('/v1/chat/completions')
      .set(enough.auth)
      .send({
        model: 'route-a',
        models: ['route-b'],
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Say hello' }],
      })
      .expect(200);
    expect(res.body.model).toBe('route-b');
    expect(res.body.cost).toBe(6);
    // The signup grant and the test balance, then one CONSUMPTION entry.
    expect(await ledgerOf(t, enough.user.id)).toEqual({ credits: 15, ledgerSum: 15, entries: 3 });
    expect(await consumption(enough)).toHaveLength(1);
    expect(Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count)).toBe(0);
  });

  it('takes the request’s `models` in place of the catalogue’s fallbacks, and names the model that answered', async () => {
    const u = await newUser(t, { credits: 1000 });
    p.openai.reply = { status: 500 };
    const res = await t.http
      .post('/v1/responses')
      .set(u.auth)
      .send({
        model: 'route-a',
        models: ['claude-haiku-4-5'],
        input: 'Say hello',
        max_output_tokens: 100,
      })
      .expect(200);
    expect(res.body.model).toBe('claude-haiku-4-5');
    expect(p.anthropic.requests.map((r) => r.body.model)).toEqual(['claude-haiku-4-5']);
    expect((await consumption(u))[0].modelId).toBe('claude-haiku-4-5');
  });

  it('refuses an unknown model in `models` before anything is held', async () => {
    const u = await newUser(t, { credits: 100 });
    const res = await t.http
      .post('/v1/chat/completions')
      .set(u.auth)
      .send({
        model: 'route-a',
        models: ['no-such-model'],
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .expect(400);
    expect(res.body.error).toMatchObject({ code: 'unknown_model', param: 'models' });
    expect(p.openai.requests).toHaveLength(0);
  });

  it('skips a fallback lacking a capability the request needs (tools): C answers, not B', async () => {
    const u = await newUser(t, { credits: 1000 });
    p.openai.reply = { status: 500 };
    const res = await t.http
      .post('/v1/chat/completions')
      .set(u.auth)
      .send({
        model: 'route-a',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Say hello' }],
        tools: [{ type: 'function', function: { name: 'noop', parameters: { type: 'object' } } }],
      })
      .expect(200);
    expect(res.body.model).toBe('route-c');
    expect([p.anthropic.requests.length, p.gemini.requests.length]).toEqual([0, 1]);
  });

  it('does not fall back after a non-retryable error (400)', async () => {
    const u = await newUser(t, { credits: 100 });
    p.openai.reply = { status: 400 };
    await t.http.post('/api/ai/generate').set(u.auth).send(ask()).expect(500);
    expect([p.openai.requests.length, p.anthropic.requests.length]).toEqual([1, 0]);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
  });

  it('streams from the fallback, every chunk naming it', async () => {
    const u = await newUser(t, { credits: 100 });
    p.openai.reply = { status: 429, retryAfter: '0' };
    const res = await t.http
      .post('/v1/chat/completions')
      .set(u.auth)
      .send({
        model: 'route-a',
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'Say hello' }],
      })
      .expect(200);
    const chunks = res.text
      .split('\n\n')
      .filter((f) => f.startsWith('data: {'))
      .map((f) => JSON.parse(f.slice(6)) as { model: string });
    expect(chunks.length).toBeGreaterThan(1);
    expect(new Set(chunks.map((c) => c.model))).toEqual(new Set(['route-b']));
    expect((await consumption(u))[0].modelId).toBe('route-b');
  });

  it('never retries nor falls back once the first token was sent: one request, charged for what was produced', async () => {
    const u = await newUser(t, { credits: 100 });
    p.openai.reply = { text: 'one two three', chunks: 3, cutAfterChunks: 1 };
    const res = await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .set('Accept', 'text/event-stream')
      .send(ask())
      .expect(200);
    const { events } = parseSse(res.text);
    expect(events.map(([e]) => e)).toEqual(['delta', 'error']);
    expect([
      p.openai.requests.length,
      p.anthropic.requests.length,
      p.gemini.requests.length,
    ]).toEqual([1, 0, 0]);
    const entries = await consumption(u);
    expect(entries).toHaveLength(1);
    expect(entries[0].modelId).toBe('route-a');
    expect(entries[0].description).toContain('estimated');
    await balanced();
  });
});
