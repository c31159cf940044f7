import { OpenAiTestServer } from '../servers/openai-server';
import { ledgerOf, newUser } from '../support/factories';
import { createTestApp, type TestApp } from '../support/test-app';

describe('AI: catalogue and metered generate (OpenAI)', () => {
  let t: TestApp;
  const openai = new OpenAiTestServer();
  const body = (modelId = 'gpt-4o') => ({
    modelId,
    messages: [{ role: 'user', content: 'Say hello' }],
  });

  beforeAll(async () => {
    await openai.start();
    t = await createTestApp({ OPENAI_API_KEY: 'sk-test-local', OPENAI_BASE_URL: openai.url });
  });
  afterAll(async () => {
    await t.close();
    await openai.stop();
  });
  beforeEach(() => {
    openai.reply = {};
    openai.requests.length = 0;
  });

  it('lists the catalogue publicly', async () => {
    const res = await t.http.get('/api/ai/models').expect(200);
    const ids = res.body.models.map((m: { id: string }) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['gpt-4o', 'gpt-4o-mini']));
    for (const m of res.body.models) {
      expect(m).toEqual(
        expect.objectContaining({
          providerId: 'openai',
          available: true,
          maxTokens: expect.any(Number),
        }),
      );
      expect(Number(m.costPerToken)).toBeGreaterThan(0);
    }
  });

  it('generates through the SDK and charges exactly the cost of the usage, once', async () => {
    const u = await newUser(t);
    openai.reply = { text: 'Hi there!', usage: { prompt_tokens: 1000, completion_tokens: 500 } };
    const res = await t.http.post('/api/ai/generate').set(u.auth).send(body('gpt-4o')).expect(200);
    // gpt-4o costs 0.00001 per token: ceil(1500 * 0.00001 * 1000) = 15 credits.
    expect(res.body).toEqual({
      text: 'Hi there!',
      usage: { promptTokens: 1000, completionTokens: 500 },
      cost: 15,
    });

    const sent = openai.requests[0];
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test-local');
    expect(sent.body).toEqual(
      expect.objectContaining({
        model: 'gpt-4o',
        max_tokens: 1000,
        messages: [{ role: 'user', content: 'Say hello' }],
      }),
    );

    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger).toEqual({ credits: 85, ledgerSum: 85, entries: 2 });
    const [entry] = await t.db.query(
      `SELECT amount, type FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.user.id],
    );
    expect(entry).toEqual({ amount: -15, type: 'CONSUMPTION' });
  });

  it('uses exact decimal pricing: 1 token at 0.0000006 costs 1 credit, not 0 or 2', async () => {
    const u = await newUser(t);
    openai.reply = { usage: { prompt_tokens: 1, completion_tokens: 0 } };
    const res = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send(body('gpt-4o-mini'))
      .expect(200);
    expect(res.body.cost).toBe(1);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(99);
  });

  it('needs a session: 401 {error}', async () => {
    const res = await t.http.post('/api/ai/generate').send(body()).expect(401);
    expect(res.body).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED' });
    expect(openai.requests).toHaveLength(0);
  });

  it('refuses a model not in the list: 400 UNKNOWN_MODEL, no upstream call', async () => {
    const u = await newUser(t);
    const res = await t.http.post('/api/ai/generate').set(u.auth).send(body('gpt-99')).expect(400);
    expect(res.body).toEqual({ error: expect.stringContaining('gpt-99'), code: 'UNKNOWN_MODEL' });
    expect(openai.requests).toHaveLength(0);
  });

  it('answers 500 {error} on a provider failure and charges nothing', async () => {
    const u = await newUser(t);
    openai.reply = { status: 500 };
    const res = await t.http.post('/api/ai/generate').set(u.auth).send(body()).expect(500);
    expect(res.body).toEqual({ error: expect.any(String), code: 'PROVIDER_ERROR' });
    expect(JSON.stringify(res.body)).not.toContain('sk-test-local');
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
  });

  it('answers 402 INSUFFICIENT_CREDITS when the balance is below the estimate, without calling upstream', async () => {
    const u = await newUser(t, { credits: 0 });
    const res = await t.http.post('/api/ai/generate').set(u.auth).send(body()).expect(402);
    expect(res.body).toEqual(
      expect.objectContaining({ code: 'INSUFFICIENT_CREDITS', error: expect.any(String) }),
    );
    expect(openai.requests).toHaveLength(0);
  });

  it('answers 402 and charges nothing when the actual cost exceeds the balance', async () => {
    const u = await newUser(t, { credits: 5 });
    openai.reply = { usage: { prompt_tokens: 1000, completion_tokens: 1000 } }; // 20 credits on gpt-4o
    await t.http.post('/api/ai/generate').set(u.auth).send(body()).expect(402);
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger.credits).toBe(5);
    expect(ledger.ledgerSum).toBe(5);
  });

  it('rejects malformed requests with 400 and calls nothing', async () => {
    const u = await newUser(t);
    await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId: 'gpt-4o', messages: [] })
      .expect(400);
    await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId: 'gpt-4o', messages: [{ role: 'wizard', content: 'x' }] })
      .expect(400);
    expect(openai.requests).toHaveLength(0);
  });
});

describe('AI without an OpenAI key', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ OPENAI_API_KEY: '' });
  });
  afterAll(() => t.close());

  it('marks the models unavailable and refuses them with 400', async () => {
    const res = await t.http.get('/api/ai/models').expect(200);
    expect(res.body.models.every((m: { available: boolean }) => m.available === false)).toBe(true);
    const u = await newUser(t);
    const gen = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .expect(400);
    expect(gen.body.code).toBe('UNKNOWN_MODEL');
  });
});
