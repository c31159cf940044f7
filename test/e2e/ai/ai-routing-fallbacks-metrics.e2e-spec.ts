import { routingCatalogue } from '../../support/catalogue';
import { newUser, type TestUser } from '../../support/factories';
import { moved, parseMetrics, type Samples } from '../../support/metrics';
import { startProviders, type Providers } from '../../support/providers';
import { parseSse } from '../../support/sse';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * The AI metrics name the model that answered: with `route-a` (OpenAI) failing, its fallback
 * `route-b` (Anthropic, 0.2 credit a token) answers, and tokens, credits, durations, first tokens
 * and errors after the answer count under `route-b`, never under `route-a`.
 */
describe('AI routing: metrics of a fallback’s answer', () => {
  let t: TestApp;
  let p: Providers;
  const scrape = async (): Promise<Samples> =>
    parseMetrics((await t.http.get('/metrics').expect(200)).text);
  const ask = {
    modelId: 'route-a',
    maxTokens: 100,
    messages: [{ role: 'user', content: 'Say hello' }],
  };
  /** The user's one CONSUMPTION entry: credits charged, tokens and the model named. */
  const charged = async (u: TestUser) => {
    const rows: { amount: number; prompt: number; completion: number; modelId: string }[] =
      await t.db.query(
        `SELECT amount, "promptTokens" AS prompt, "completionTokens" AS completion, "modelId"
         FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
        [u.user.id],
      );
    expect(rows).toHaveLength(1);
    return { ...rows[0], credits: -rows[0].amount };
  };
  /** How much every sample of `name` whose labels include `label` moved, summed. */
  const movedWhere = (before: Samples, after: Samples, name: string, label: string) =>
    [...after.keys()]
      .filter((k) => k.startsWith(`${name}{`) && k.includes(label))
      .reduce((sum, k) => sum + (after.get(k) ?? 0) - (before.get(k) ?? 0), 0);

  /** Tokens and credits moved under `route-b` by exactly the charge, and nothing under `route-a`. */
  const countedUnderFallback = (
    before: Samples,
    after: Samples,
    c: Awaited<ReturnType<typeof charged>>,
  ) => {
    expect(c.modelId).toBe('route-b');
    const tokens = (model: string, kind: string) =>
      moved(before, after, 'ai_tokens_total', { model, kind });
    expect([tokens('route-b', 'prompt'), tokens('route-b', 'completion')]).toEqual([
      c.prompt,
      c.completion,
    ]);
    expect(moved(before, after, 'credits_consumed_total', { model: 'route-b' })).toBe(c.credits);
    expect([tokens('route-a', 'prompt'), tokens('route-a', 'completion')]).toEqual([0, 0]);
    expect(moved(before, after, 'credits_consumed_total', { model: 'route-a' })).toBe(0);
    const fallback = { provider: 'anthropic', model: 'route-b' };
    expect(moved(before, after, 'ai_request_duration_seconds_count', fallback)).toBe(1);
    const requested = { provider: 'openai', model: 'route-a' };
    expect(moved(before, after, 'ai_request_duration_seconds_count', requested)).toBe(0);
  };

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, MODELS_FILE: routingCatalogue() });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  it('counts a whole reply from the fallback under the fallback’s model id', async () => {
    const u = await newUser(t, { credits: 100 });
    p.openai.reply = { status: 500 };
    const before = await scrape();
    const res = await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    const after = await scrape();
    expect(res.body).toMatchObject({ modelId: 'route-b', cost: 6 });
    const c = await charged(u);
    // Anthropic's 10 + 20 tokens at 0.2 credit each.
    expect(c).toMatchObject({ prompt: 10, completion: 20, credits: 6 });
    countedUnderFallback(before, after, c);
  });

  it('counts a stream from the fallback, and its first token, under the fallback’s model id', async () => {
    const u = await newUser(t, { credits: 100 });
    p.openai.reply = { status: 429, retryAfter: '0' };
    const before = await scrape();
    const res = await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .set('Accept', 'text/event-stream')
      .send(ask)
      .expect(200);
    const after = await scrape();
    const { events } = parseSse(res.text);
    const done = events.find(([e]) => e === 'done')?.[1];
    expect(done).toMatchObject({ modelId: 'route-b' });
    const c = await charged(u);
    expect(done.cost).toBe(c.credits);
    expect(c.credits).toBeGreaterThan(0);
    countedUnderFallback(before, after, c);
    const first = 'ai_time_to_first_token_seconds_count';
    expect(moved(before, after, first, { provider: 'anthropic', model: 'route-b' })).toBe(1);
    expect(moved(before, after, first, { provider: 'openai', model: 'route-a' })).toBe(0);
  });

  it('counts an error after the fallback’s first chunk under the fallback’s provider', async () => {
    const u = await newUser(t, { credits: 100 });
    p.openai.reply = { status: 500 };
    p.anthropic.reply = { text: 'one two three', chunks: 3, cutAfterChunks: 1 };
    const before = await scrape();
    const res = await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .set('Accept', 'text/event-stream')
      .send(ask)
      .expect(200);
    const after = await scrape();
    expect(parseSse(res.text).events.map(([e]) => e)).toEqual(['delta', 'error']);
    const errors = 'ai_provider_errors_total';
    expect(movedWhere(before, after, errors, 'provider="anthropic"')).toBe(1);
    expect(movedWhere(before, after, errors, 'provider="openai"')).toBe(0);
    // The cut reply is charged at an estimate, still under the model that produced it.
    countedUnderFallback(before, after, await charged(u));
  });
});
