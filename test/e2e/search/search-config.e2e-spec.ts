import { SearchIndexer } from '../../../src/search/search-indexer.service';
import { OpenAiTestServer } from '../../servers/openai-server';
import { newChat, newUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * Chat search by configuration: no embeddings model, Gemini's embeddings, and an embeddings
 * model whose provider has no key but an upstream row serves.
 */

describe('Chat search without an embeddings model', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers semantic with 400 SEMANTIC_SEARCH_UNAVAILABLE and falls back to keyword for hybrid', async () => {
    const u = await newUser(t);
    await newChat(t, u, { messages: ['An automobile and a car'] });
    const res = await t.http
      .get('/api/search')
      .query({ q: 'car', mode: 'semantic' })
      .set(u.auth)
      .expect(400);
    expect(res.body).toMatchObject({ success: false, code: 'SEMANTIC_SEARCH_UNAVAILABLE' });
    const hybrid = await t.http.get('/api/search').query({ q: 'car' }).set(u.auth).expect(200);
    expect(hybrid.body.data).toHaveLength(1);
    const none = await t.http
      .get('/api/search')
      .query({ q: 'nothing-like-this' })
      .set(u.auth)
      .expect(200);
    expect(none.body).toEqual({ success: true, data: [], nextCursor: null });
  });

  it('keeps embedding models out of the chat catalogue (/api/ai/models, generate)', async () => {
    const res = await t.http.get('/api/ai/models').expect(200);
    const ids = (res.body.models as { id: string }[]).map((m) => m.id);
    expect(ids).toContain('gpt-4o-mini');
    expect(ids.filter((id) => /embedding/.test(id))).toEqual([]);
    const u = await newUser(t);
    await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId: 'text-embedding-3-small', messages: [{ role: 'user', content: 'hi' }] })
      .expect(400);
  });
});

describe('Chat search with Gemini embeddings (default catalogue)', () => {
  let t: TestApp;
  let p: Providers;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, EMBEDDINGS_MODEL: 'gemini-embedding-001' });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });

  it('embeds through @google/genai (batchEmbedContents) and finds 汽车 by meaning', async () => {
    const u = await newUser(t, { credits: 100 });
    const chat = await newChat(t, u, {
      messages: ['I parked the automobile', 'Bananas are yellow'],
    });
    expect(await t.app.get(SearchIndexer).indexChat(chat.id)).toBe(2);
    const [batch] = p.gemini.requests;
    expect(batch.path).toBe('/v1/models/gemini-embedding-001:batchEmbedContents');
    expect(batch.body.requests).toHaveLength(2);
    expect(batch.body.requests[0]).toMatchObject({
      taskType: 'RETRIEVAL_DOCUMENT',
      outputDimensionality: 256,
    });
    const res = await t.http
      .get('/api/search')
      .query({ q: '汽车', mode: 'semantic' })
      .set(u.auth)
      .expect(200);
    expect((res.body.data as { snippet: string }[]).map((h) => h.snippet)).toEqual([
      'I parked the automobile',
    ]);
    expect(p.gemini.requests.at(-1)?.body.requests[0].taskType).toBe('RETRIEVAL_QUERY');
  });

  it('keeps embedding models out of /v1/models, with the providers keyed', async () => {
    const u = await newUser(t);
    const { key } = (await t.http.post('/api/keys').set(u.auth).send({ name: 'k' }).expect(201))
      .body as { key: string };
    const v1 = await t.http
      .get('/v1/models')
      .set({ Authorization: `Bearer ${key}` })
      .expect(200);
    const v1Ids = (v1.body.data as { id: string }[]).map((m) => m.id);
    expect(v1Ids).toContain('gpt-4o-mini');
    expect(v1Ids.filter((id) => /embedding/.test(id))).toEqual([]);
  });

  it('refuses to start with an EMBEDDINGS_MODEL that is not an embedding model', async () => {
    await expect(createTestApp({ ...p.env, EMBEDDINGS_MODEL: 'gpt-4o-mini' })).rejects.toThrow(
      /EMBEDDINGS_MODEL=gpt-4o-mini is not an embedding model/,
    );
  });
});

describe('Chat search with an embeddings model served only by an upstream row', () => {
  const MODEL = 'text-embedding-3-small';
  let t: TestApp;
  let server: OpenAiTestServer;

  beforeAll(async () => {
    server = await new OpenAiTestServer().start();
    // No OPENAI_API_KEY: only an upstream row can serve the model.
    t = await createTestApp({
      EMBEDDINGS_MODEL: MODEL,
      AI_RETRY_BASE_DELAY_MS: '5',
      // Saved messages are indexed by the test itself, never by a queued job.
      SEARCH_INDEX_DELAY_SECONDS: '3600',
    });
  });
  afterAll(async () => {
    await t.close();
    await server.stop();
  });

  it('is off without a serving row, on once an admin adds one (vectors from that server), off again when it is disabled', async () => {
    const u = await newUser(t, { credits: 100 });
    const admin = await newUser(t, { role: 'ADMIN' });
    const chat = await newChat(t, u, {
      messages: ['I parked the automobile', 'Bananas are yellow'],
    });
    const semantic = (status: number) =>
      t.http.get('/api/search').query({ q: 'car', mode: 'semantic' }).set(u.auth).expect(status);

    expect((await semantic(400)).body.code).toBe('SEMANTIC_SEARCH_UNAVAILABLE');
    // Hybrid is keyword alone: "car" is not a word of the chat.
    expect(
      (await t.http.get('/api/search').query({ q: 'car' }).set(u.auth).expect(200)).body.data,
    ).toEqual([]);

    const row = await t.http
      .post('/api/admin/upstreams')
      .set(admin.auth)
      .send({
        provider: 'openai-compatible',
        name: 'embedder',
        baseUrl: server.url,
        apiKey: 'sk-embedder-key',
        models: [MODEL],
      })
      .expect(201);
    expect(await t.app.get(SearchIndexer).indexChat(chat.id)).toBe(2);
    const embeds = () => server.requests.filter((r) => r.path === '/v1/embeddings');
    expect(embeds()).toHaveLength(1);
    expect(embeds()[0].body.input).toEqual(['I parked the automobile', 'Bananas are yellow']);
    expect(embeds()[0].headers.authorization).toBe('Bearer sk-embedder-key');

    const found = await semantic(200);
    expect((found.body.data as { snippet: string }[]).map((h) => h.snippet)).toEqual([
      'I parked the automobile',
    ]);
    expect(embeds()).toHaveLength(2);
    expect(embeds()[1].body.input).toEqual(['car']);

    await t.http
      .patch(`/api/admin/upstreams/${row.body.id}`)
      .set(admin.auth)
      .send({ enabled: false })
      .expect(200);
    expect((await semantic(400)).body.code).toBe('SEMANTIC_SEARCH_UNAVAILABLE');
    expect(embeds()).toHaveLength(2);
  });
});
