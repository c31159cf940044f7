import type { AddressInfo } from 'node:net';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { startProviders, type Providers } from '../../support/providers';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitFor } from '../../support/wait';

/**
 * `/v1`, the OpenAI wire protocol, driven by the official `openai` SDK and the
 * AI SDK's OpenAI-compatible provider, changing only their base URL and key.
 */
describe('OpenAI-compatible /v1', () => {
  let t: TestApp;
  let p: Providers;
  let baseURL: string;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp(p.env);
    const server = t.app.getHttpServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  async function keyFor(u: TestUser, body: object = {}): Promise<{ id: string; key: string }> {
    const res = await t.http
      .post('/api/keys')
      .set(u.auth)
      .send({ name: 'sdk', ...body })
      .expect(201);
    return res.body;
  }
  const client = (apiKey: string) => new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  const consumptions = (userId: string) =>
    t.db.query(
      `SELECT amount, "keyId", "modelId" FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt"`,
      [userId],
    );

  it('lists the models in OpenAI shape', async () => {
    const u = await newUser(t);
    const { key } = await keyFor(u);
    const models = [];
    for await (const m of client(key).models.list()) models.push(m);
    expect(models.map((m) => m.id)).toEqual(expect.arrayContaining(['gpt-4o', 'claude-haiku-4-5']));
    expect(models[0]).toEqual(
      expect.objectContaining({ object: 'model', owned_by: expect.any(String) }),
    );
  });

  it('answers chat.completions.create whole, metered through the key, saving nothing by default', async () => {
    const u = await newUser(t);
    const { id, key } = await keyFor(u);
    const done = await client(key).chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Say hello' }] },
      ],
      max_tokens: 50,
    });
    expect(done.object).toBe('chat.completion');
    expect(done.choices[0].message.content).toBe('Hello from the test model.');
    expect(done.choices[0].finish_reason).toBe('stop');
    expect(done.usage).toEqual({ prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 });
    expect((done as unknown as { cost: number }).cost).toBe(1);
    // Sent upstream as our request: the system prompt and the text part.
    expect(p.openai.requests[0].body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello' },
    ]);
    expect(await consumptions(u.user.id)).toEqual([{ amount: -1, keyId: id, modelId: 'gpt-4o' }]);
    const chats = await t.db.query('SELECT id FROM chats WHERE "userId" = $1', [u.user.id]);
    expect(chats).toEqual([]);
  });

  it('streams chunks ending in [DONE], with usage and cost when asked; store: true saves a chat', async () => {
    const u = await newUser(t);
    const { id, key } = await keyFor(u);
    p.anthropic.reply = { text: 'one two three', chunks: 3 };
    const stream = await client(key).chat.completions.create({
      model: 'claude-haiku-4-5',
      messages: [{ role: 'user', content: 'Count' }],
      stream: true,
      stream_options: { include_usage: true },
      store: true,
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    let cost: number | undefined;
    const finish: (string | null)[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]) finish.push(chunk.choices[0].finish_reason);
      if (chunk.usage) {
        usage = chunk.usage;
        cost = (chunk as unknown as { cost: number }).cost;
      }
    }
    expect(text).toBe('one two three');
    expect(finish.at(-1)).toBe('stop');
    expect(usage?.total_tokens).toBeGreaterThan(0);
    expect(cost).toBeGreaterThan(0);
    const [entry] = await consumptions(u.user.id);
    expect(entry).toEqual(expect.objectContaining({ amount: -cost!, keyId: id }));
    const saved = await t.db.query(
      `SELECT c.title, m.role, m.content FROM chats c JOIN messages m ON m."chatId" = c.id
       WHERE c."userId" = $1 ORDER BY m."createdAt", m.role DESC`,
      [u.user.id],
    );
    expect(saved.map((m: { content: string }) => m.content)).toEqual(['Count', 'one two three']);
  });

  it('raises the SDK errors: AuthenticationError, APIError 402, RateLimitError, BadRequestError', async () => {
    const u = await newUser(t, { credits: 5 });
    const { id, key } = await keyFor(u);
    const ask = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'Hi' }] };

    const poor = await client(key)
      .chat.completions.create(ask)
      .catch((e: unknown) => e);
    expect(poor).toBeInstanceOf(OpenAI.APIError);
    expect((poor as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    expect((poor as InstanceType<typeof OpenAI.APIError>).code).toBe('insufficient_credits');

    const n2 = await client(key)
      .chat.completions.create({ ...ask, n: 2 })
      .catch((e: unknown) => e);
    expect(n2).toBeInstanceOf(OpenAI.BadRequestError);
    expect((n2 as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('n');

    const unknown = await client(key)
      .chat.completions.create({ ...ask, model: 'gpt-0' })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.BadRequestError);

    await t.http.delete(`/api/keys/${id}`).set(u.auth).expect(200);
    const revoked = await client(key)
      .chat.completions.create(ask)
      .catch((e: unknown) => e);
    expect(revoked).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((revoked as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe(
      'invalid_api_key',
    );

    const rich = await newUser(t, { credits: 1000 });
    // One hold of gpt-4o with max_tokens 1000: ceil((1 + 1000) × 0.01) = 11 credits.
    const limited = await keyFor(rich, { dailyCreditLimit: 11 });
    const asked = { ...ask, max_tokens: 1000 };
    await client(limited.key).chat.completions.create(asked);
    const over = await client(limited.key)
      .chat.completions.create(asked)
      .catch((e: unknown) => e);
    expect(over).toBeInstanceOf(OpenAI.RateLimitError);
    expect((over as InstanceType<typeof OpenAI.RateLimitError>).code).toBe(
      'key_daily_limit_reached',
    );
    expect(
      Number((over as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')),
    ).toBeGreaterThan(0);
    expect(p.openai.requests).toHaveLength(1);
  });

  it('works with the AI SDK OpenAI-compatible provider: generateText and streamText', async () => {
    const u = await newUser(t);
    const { key } = await keyFor(u);
    const provider = createOpenAICompatible({
      name: 'ours',
      baseURL,
      apiKey: key,
      includeUsage: true,
    });
    const whole = await generateText({ model: provider('gpt-4o'), prompt: 'Hello?' });
    expect(whole.text).toBe('Hello from the test model.');
    expect(whole.usage.inputTokens).toBe(10);
    expect(whole.usage.outputTokens).toBe(20);

    p.gemini.reply = { text: 'streamed words here', chunks: 3 };
    const streamed = streamText({ model: provider('gemini-2.5-flash'), prompt: 'Stream?' });
    let text = '';
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toBe('streamed words here');
    expect((await streamed.usage).outputTokens).toBeGreaterThan(0);
    expect(await consumptions(u.user.id)).toHaveLength(2);
  });

  it('charges a stream aborted by the SDK client for what was produced', async () => {
    const u = await newUser(t);
    const { key } = await keyFor(u);
    // The upstream goes silent after two chunks: only the abort ends its request.
    p.openai.reply = { text: 'a b c d e f', chunks: 6, stallAfterChunks: 2 };
    const controller = new AbortController();
    const stream = await client(key).chat.completions.create(
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'Go' }], stream: true },
      { signal: controller.signal },
    );
    let seen = '';
    // The SDK ends the iteration quietly when its signal aborts the request.
    for await (const chunk of stream) {
      seen += chunk.choices[0]?.delta.content ?? '';
      if (seen.length > 0) controller.abort();
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).not.toBe('a b c d e f');
    expect(await waitFor(async () => p.openai.requests[0]?.aborted === true)).toBe(true);
    const settled = async () =>
      Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count) === 0;
    expect(await waitFor(settled)).toBe(true);
    const [entry] = await t.db.query(
      `SELECT amount, description FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.user.id],
    );
    expect(entry.description).toMatch(/estimated/);
    expect(entry.amount).toBeLessThan(0);
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger.credits).toBe(ledger.ledgerSum);
  });

  it('answers validation errors in OpenAI shape', async () => {
    const u = await newUser(t);
    const { key } = await keyFor(u);
    const res = await t.http
      .post('/v1/chat/completions')
      .set({ Authorization: `Bearer ${key}` })
      .send({ model: 'gpt-4o', messages: [], surprise: 1 })
      .expect(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({ type: 'invalid_request_error', code: 'validation_failed' }),
    );
    const noKey = await t.http.post('/v1/chat/completions').send({}).expect(401);
    expect(noKey.body.error.type).toBe('authentication_error');
  });
});
