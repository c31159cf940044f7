import { OpenAiTestServer } from '../../servers/openai-server';
import { newUser, type TestUser } from '../../support/factories';
import { HandClock } from '../../support/hand-clock';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { GenerationsRetention } from '../../../src/generations/generations-retention.service';

/**
 * Generation records: every model call leaves one, written by its settlement, named by
 * `X-Generation-Id`, read by its caller (`/v1/generations/{id}`, `/api/generations`) and by
 * admins, and deleted after GENERATIONS_KEEP_DAYS.
 */
describe('Generation records', () => {
  let t: TestApp;
  let p: Providers;
  let backup: OpenAiTestServer;
  let admin: TestUser;
  const clock = new HandClock();
  const ask = { modelId: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] };
  const completion = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] };

  beforeAll(async () => {
    p = await startProviders();
    backup = await new OpenAiTestServer().start();
    t = await createTestApp(
      { ...p.env, AI_RETRY_ATTEMPTS: '1', GENERATIONS_KEEP_DAYS: '30' },
      { clock },
    );
    admin = await newUser(t, { role: 'ADMIN' });
    await t.http
      .post('/api/admin/upstreams')
      .set(admin.auth)
      .send({
        provider: 'openai-compatible',
        name: 'backup',
        baseUrl: backup.url,
        apiKey: 'sk-backup-key',
        priority: -1,
      })
      .expect(201);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
    await backup.stop();
  });
  beforeEach(async () => {
    p.reset();
    backup.reset();
    clock.tick(60_000); // past any cooldown of the test before
    await t.db.query('DELETE FROM upstream_states');
  });

  const keyOf = async (u: TestUser): Promise<{ id: string; auth: { Authorization: string } }> => {
    const res = await t.http.post('/api/keys').set(u.auth).send({ name: 'k' }).expect(201);
    return { id: res.body.id, auth: { Authorization: `Bearer ${res.body.key}` } };
  };
  const consumption = async (id: string) => {
    const [entry] = await t.db.query(
      `SELECT amount FROM credit_transactions WHERE reference = $1`,
      [`consumption:${id}`],
    );
    return entry;
  };
  const rows = (userId: string) =>
    t.db.query('SELECT * FROM generations WHERE "userId" = $1', [userId]);

  it('records a /v1 call: its id is X-Generation-Id, its cost the ledger entry, readable by its key only', async () => {
    const u = await newUser(t, { credits: 100 });
    const key = await keyOf(u);
    const res = await t.http
      .post('/v1/chat/completions')
      .set(key.auth)
      .send(completion)
      .expect(200);
    const id = res.headers['x-generation-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await rows(u.user.id)).toHaveLength(1);

    const got = await t.http.get(`/v1/generations/${id}`).set(key.auth).expect(200);
    const entry = await consumption(id);
    expect(got.body.data).toEqual(
      expect.objectContaining({
        id,
        model: 'gpt-4o-mini',
        requested_model: 'gpt-4o-mini',
        tokens_prompt: 10,
        tokens_completion: 20,
        total_cost: -entry.amount,
        finish_reason: 'stop',
        provider_name: 'env:openai',
        streamed: false,
        usage_estimated: false,
      }),
    );
    // Another key of the same user, and another user, do not see it.
    const other = await keyOf(u);
    await t.http.get(`/v1/generations/${id}`).set(other.auth).expect(404);
    const stranger = await newUser(t);
    await t.http.get(`/v1/generations/${id}`).set(stranger.auth).expect(404);
    await t.http.get('/v1/generations/not-an-id').set(key.auth).expect(404);
    // The session of its user does.
    await t.http.get(`/v1/generations/${id}`).set(u.auth).expect(200);
    // The answer's own id carries the generation id, and names it too.
    expect(res.body.id).toBe(`chatcmpl-${id.replaceAll('-', '')}`);
    await t.http.get(`/v1/generations/${res.body.id}`).set(key.auth).expect(200);
  });

  it('names the generation in a /v1/messages answer', async () => {
    const u = await newUser(t, { credits: 100 });
    const res = await t.http
      .post('/v1/messages')
      .set(u.auth)
      .send({
        model: 'claude-haiku-4-5',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .expect(200);
    const id = res.headers['x-generation-id'];
    expect(res.body.id).toBe(`msg_${id.replaceAll('-', '')}`);
    const got = await t.http.get(`/v1/generations/${res.body.id}`).set(u.auth).expect(200);
    expect(got.body.data).toEqual(
      expect.objectContaining({ id, model: 'claude-haiku-4-5', provider_name: 'env:anthropic' }),
    );
  });

  it('records an /api/ai call, whole and streamed, with the tokens, cost and chat', async () => {
    const u = await newUser(t, { credits: 100 });
    const whole = await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    const streamed = await t.http.post('/api/ai/stream').set(u.auth).send(ask).expect(200);
    const ids = [whole, streamed].map((r) => r.headers['x-generation-id']);

    const page = await t.http.get('/api/generations').set(u.auth).expect(200);
    expect(page.body.data.map((g: { id: string }) => g.id).sort()).toEqual([...ids].sort());
    for (const g of page.body.data) {
      expect(g.cost).toBe(-(await consumption(g.id)).amount);
      expect(g).toEqual(
        expect.objectContaining({
          userId: u.user.id,
          keyId: null,
          requestedModel: 'gpt-4o-mini',
          promptTokens: 10,
          completionTokens: 20,
          upstream: 'env:openai',
          attempts: [{ upstream: 'env:openai', model: 'gpt-4o-mini' }],
          usageEstimated: false,
        }),
      );
    }
    const byId = Object.fromEntries(page.body.data.map((g: { id: string }) => [g.id, g]));
    expect(byId[ids[0]]).toEqual(expect.objectContaining({ streamed: false, firstTokenMs: null }));
    expect(byId[ids[1]].streamed).toBe(true);
    expect(byId[ids[1]].firstTokenMs).toEqual(expect.any(Number));
    expect(byId[ids[0]].chatId).toBe(whole.body.chatId);
    // The ledger names each entry's generation.
    const ledger = await t.http.get('/api/credits/transactions').set(u.auth).expect(200);
    const named = ledger.body.data
      .filter((e: { type: string }) => e.type === 'CONSUMPTION')
      .map((e: { generationId: string }) => e.generationId);
    expect(named.sort()).toEqual([...ids].sort());
  });

  it('records an embeddings call', async () => {
    const u = await newUser(t, { credits: 100 });
    await t.http
      .post('/v1/embeddings')
      .set(u.auth)
      .send({ model: 'text-embedding-3-small', input: 'hello' })
      .expect(200);
    const [g] = await rows(u.user.id);
    expect(g).toEqual(
      expect.objectContaining({ model: 'text-embedding-3-small', completionTokens: 0 }),
    );
    expect(g.cost).toBe(-(await consumption(g.id)).amount);
  });

  it('records the upstreams tried and their errors when a call falls back', async () => {
    const u = await newUser(t, { credits: 100 });
    p.openai.reply = { status: 500 };
    const res = await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    const [g] = await rows(u.user.id);
    expect(g.id).toBe(res.headers['x-generation-id']);
    expect(g.upstream).toBe('backup');
    expect(g.attempts).toEqual([
      expect.objectContaining({ upstream: 'env:openai', status: 500, error: expect.any(String) }),
      { upstream: 'backup', model: 'gpt-4o-mini' },
    ]);
  });

  it('lets admins page across users with filters; others only their own', async () => {
    const a = await newUser(t, { credits: 100 });
    const b = await newUser(t, { credits: 100 });
    await t.http.post('/api/ai/generate').set(a.auth).send(ask).expect(200);
    await t.http.post('/api/ai/generate').set(b.auth).send(ask).expect(200);
    p.openai.reply = { status: 500 };
    await t.http.post('/api/ai/generate').set(b.auth).send(ask).expect(200);

    const ofB = await t.http
      .get('/api/generations')
      .query({ userId: b.user.id })
      .set(admin.auth)
      .expect(200);
    expect(ofB.body.data).toHaveLength(2);
    const viaBackup = await t.http
      .get('/api/generations')
      .query({ userId: b.user.id, upstream: 'backup' })
      .set(admin.auth)
      .expect(200);
    expect(viaBackup.body.data).toHaveLength(1);
    const paged = await t.http
      .get('/api/generations')
      .query({ userId: b.user.id, limit: 1 })
      .set(admin.auth)
      .expect(200);
    expect(paged.body.data).toHaveLength(1);
    const next = await t.http
      .get('/api/generations')
      .query({ userId: b.user.id, limit: 1, cursor: paged.body.nextCursor })
      .set(admin.auth)
      .expect(200);
    expect(next.body.data[0].id).not.toBe(paged.body.data[0].id);
    expect(next.body.nextCursor).toBeNull();

    // A user sees only their own; naming another is refused.
    const own = await t.http.get('/api/generations').set(a.auth).expect(200);
    expect(own.body.data.map((g: { userId: string }) => g.userId)).toEqual([a.user.id]);
    const refused = await t.http
      .get('/api/generations')
      .query({ userId: b.user.id })
      .set(a.auth)
      .expect(403);
    expect(refused.body.code).toBe('FORBIDDEN');
  });

  it('deletes records older than GENERATIONS_KEEP_DAYS', async () => {
    const u = await newUser(t, { credits: 100 });
    await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    const retention = t.app.get(GenerationsRetention);
    await retention.pass();
    expect(await rows(u.user.id)).toHaveLength(1);
    clock.tick(31 * 24 * 3600 * 1000);
    expect(await retention.pass()).toBeGreaterThanOrEqual(1);
    expect(await rows(u.user.id)).toHaveLength(0);
  });
});
