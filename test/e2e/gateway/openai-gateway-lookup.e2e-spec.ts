import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { hashedEmbedding } from '../../servers/embeddings';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

type ApiError = InstanceType<typeof OpenAI.APIError>;

/**
 * `/v1` beyond chat: model lookup, JSON 404s for unknown paths, and embeddings, driven by the
 * official `openai` SDK with only its base URL and key changed.
 */
describe('OpenAI-compatible /v1: models, unknown paths, embeddings', () => {
  let t: TestApp;
  let p: Providers;
  let origin: string;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp(p.env);
    const server = t.app.getHttpServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  async function keyFor(u: TestUser, body: object = {}): Promise<string> {
    const res = await t.http
      .post('/api/keys')
      .set(u.auth)
      .send({ name: 'sdk', ...body })
      .expect(201);
    return res.body.key;
  }
  const client = (apiKey: string) => new OpenAI({ baseURL: `${origin}/v1`, apiKey, maxRetries: 0 });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (e: unknown) => e as ApiError,
    );
  const consumptions = (userId: string) =>
    t.db.query(
      `SELECT amount, description, "modelId", "promptTokens" FROM credit_transactions
       WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt"`,
      [userId],
    );

  it('retrieves a chat or an embedding model in the shape of the list, dotted ids too', async () => {
    const key = await keyFor(await newUser(t));
    const listed = [];
    for await (const m of client(key).models.list()) listed.push(m);
    const mini = await client(key).models.retrieve('gpt-4o-mini');
    expect(mini).toEqual(listed.find((m) => m.id === 'gpt-4o-mini'));
    expect(await client(key).models.retrieve('gpt-4.1-mini')).toEqual(
      expect.objectContaining({ id: 'gpt-4.1-mini', object: 'model', owned_by: 'openai' }),
    );
    expect(await client(key).models.retrieve('gemini-embedding-001')).toEqual({
      id: 'gemini-embedding-001',
      object: 'model',
      created: mini.created,
      owned_by: 'google',
      // An embedding model is priced by its input (per token, OpenRouter's strings).
      pricing: expect.objectContaining({ prompt: expect.stringMatching(/^\d+(\.\d+)?$/) }),
    });
  });

  it('answers an unknown model with NotFoundError (model_not_found), an id with / too', async () => {
    const key = await keyFor(await newUser(t));
    for (const id of ['gpt-0', 'org/gpt-4o-mini']) {
      const err = await failure(client(key).models.retrieve(id));
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect([err?.code, err?.type, err?.param]).toEqual([
        'model_not_found',
        'invalid_request_error',
        'model',
      ]);
    }
  });

  it('answers every unknown path under /v1 with a JSON 404 in OpenAI shape, never a page or redirect', async () => {
    const key = await keyFor(await newUser(t));
    const sdk = await failure(client(key).get('/assistants/nope'));
    expect(sdk).toBeInstanceOf(OpenAI.NotFoundError);
    for (const [method, path] of [
      ['GET', '/v1/nope'],
      ['GET', '/v1/models/gpt-4o-mini/extra'],
      ['GET', '/v1/files/report.pdf'],
      ['GET', '/v1'],
      ['POST', '/v1/nope'],
      ['DELETE', '/v1/models/gpt-4o-mini'],
    ]) {
      const res = await fetch(`${origin}${path}`, {
        method,
        redirect: 'manual',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      expect([method, path, res.status, res.headers.get('content-type')]).toEqual([
        method,
        path,
        404,
        expect.stringMatching(/^application\/json/),
      ]);
      const body = (await res.json()) as { error: Record<string, unknown> };
      expect(body.error).toEqual(
        expect.objectContaining({ type: 'invalid_request_error', code: 'not_found' }),
      );
    }
  });

  it('embeds a string and an array, float and base64; the balance drops by exactly the cost', async () => {
    const u = await newUser(t, { credits: 100 });
    const key = await keyFor(u);
    const one = await client(key).embeddings.create({
      model: 'text-embedding-3-small',
      input: 'I parked the automobile',
      encoding_format: 'float',
    });
    expect(one.object).toBe('list');
    expect(one.model).toBe('text-embedding-3-small');
    expect(one.data).toEqual([
      { object: 'embedding', index: 0, embedding: hashedEmbedding('I parked the automobile', 64) },
    ]);
    expect(one.usage).toEqual({ prompt_tokens: 6, total_tokens: 6 });
    const oneCost = (one as unknown as { cost: number }).cost;
    expect(oneCost).toBe(1);

    const texts = ['first text', 'second, longer text here', '第三'];
    const raw = await client(key).embeddings.create({
      model: 'text-embedding-3-small',
      input: texts,
      encoding_format: 'base64',
      dimensions: 16,
      user: 'end-user-1',
    });
    const decoded = raw.data.map((d) => {
      const bytes = Buffer.from(d.embedding as unknown as string, 'base64');
      return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
    });
    expect(decoded).toEqual(texts.map((text) => hashedEmbedding(text, 16)));
    expect(raw.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(raw.usage).toEqual({ prompt_tokens: 3 + 6 + 1, total_tokens: 10 });
    expect(p.openai.requests.at(-1)?.body).toEqual(
      expect.objectContaining({ input: texts, dimensions: 16, encoding_format: 'float' }),
    );

    // The SDK's default asks for base64 and decodes it: the same numbers as `float`.
    const sdkDefault = await client(key).embeddings.create({
      model: 'gemini-embedding-001',
      input: texts,
    });
    expect(sdkDefault.data.map((d) => d.embedding)).toEqual(
      texts.map((text) => hashedEmbedding(text, 64)),
    );

    const costs = [one, raw, sdkDefault].map((r) => (r as unknown as { cost: number }).cost);
    const entries = await consumptions(u.user.id);
    expect(entries).toHaveLength(3);
    expect(entries.map((e: { amount: number }) => -e.amount)).toEqual(costs);
    expect(entries[1]).toEqual({
      amount: -costs[1],
      description: 'embeddings',
      modelId: 'text-embedding-3-small',
      promptTokens: 10,
    });
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger.credits).toBe(100 - costs.reduce((a, b) => a + b, 0));
    expect(ledger.credits).toBe(ledger.ledgerSum);
    const [{ holds }] = await t.db.query('SELECT count(*)::int AS holds FROM credit_holds');
    expect(holds).toBe(0);
  });

  it('refuses a key without the `ai` scope (403) and a balance too low (402), charging nothing', async () => {
    const rich = await newUser(t, { credits: 100 });
    const readOnly = await keyFor(rich, { scopes: ['chats:read'] });
    const ask = { model: 'text-embedding-3-small', input: 'hello' };
    const denied = await failure(client(readOnly).embeddings.create(ask));
    expect(denied).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(denied?.code).toBe('insufficient_scope');
    const lookup = await failure(client(readOnly).models.retrieve('gpt-4o-mini'));
    expect(lookup).toBeInstanceOf(OpenAI.PermissionDeniedError);

    const poor = await newUser(t, { credits: 0 });
    const broke = await failure(client(await keyFor(poor)).embeddings.create(ask));
    expect(broke).toBeInstanceOf(OpenAI.APIError);
    expect([broke?.status, broke?.code, broke?.type]).toEqual([
      402,
      'insufficient_credits',
      'insufficient_quota',
    ]);
    expect(p.openai.requests).toHaveLength(0);
    expect(await consumptions(rich.user.id)).toEqual([]);
    expect(await consumptions(poor.user.id)).toEqual([]);
  });

  it('answers 400 in OpenAI shape for a chat model, token arrays and inputs over the caps', async () => {
    const u = await newUser(t, { credits: 100 });
    const key = await keyFor(u);
    const refused = async (body: Record<string, unknown>) => {
      const err = await failure(
        client(key).embeddings.create(body as unknown as OpenAI.EmbeddingCreateParams),
      );
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      return [err?.code, err?.param];
    };
    const model = 'text-embedding-3-small';
    expect(await refused({ model: 'gpt-4o-mini', input: 'hi' })).toEqual([
      'model_capability_missing',
      'model',
    ]);
    expect(await refused({ model: 'text-embedding-9', input: 'hi' })).toEqual([
      'unknown_model',
      'model',
    ]);
    expect(await refused({ model, input: [1, 2, 3] })).toEqual(['unsupported_parameter', 'input']);
    expect(await refused({ model, input: [[1, 2]] })).toEqual(['unsupported_parameter', 'input']);
    expect(await refused({ model, input: '' })).toEqual(['validation_failed', 'input']);
    expect(await refused({ model, input: [] })).toEqual(['validation_failed', 'input']);
    expect(await refused({ model, input: Array(257).fill('x') })).toEqual([
      'validation_failed',
      'input',
    ]);
    expect(await refused({ model, input: ['a'.repeat(100_000), 'b'.repeat(100_001)] })).toEqual([
      'validation_failed',
      'input',
    ]);
    // Over the model's context (8191 tokens at ceil(characters / 4)).
    expect(await refused({ model, input: 'c'.repeat(8192 * 4) })).toEqual([
      'validation_failed',
      'input',
    ]);
    expect(await refused({ model, input: 'hi', encoding_format: 'int8' })).toEqual([
      'validation_failed',
      'encoding_format',
    ]);
    expect(p.openai.requests).toHaveLength(0);
    expect(await consumptions(u.user.id)).toEqual([]);
  });
});
