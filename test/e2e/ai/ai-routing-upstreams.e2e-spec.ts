import { OpenAiTestServer } from '../../servers/openai-server';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { parseMetrics, sample } from '../../support/metrics';
import { startProviders, type Providers } from '../../support/providers';
import { HandClock } from '../../support/hand-clock';
import { createTestApp, type TestApp } from '../../support/test-app';
import { unbalanced } from '../../faults/support/ledger';

const TOKEN = 'metrics-token-0123456789';
const COOLDOWN_MS = 1000;

/**
 * Failover across the upstreams of one provider: the environment's OpenAI upstream (`env:openai`,
 * priority 0) and a second OpenAI-compatible server an operator adds through the admin API
 * (`backup`, priority -1, so the order is fixed while both are healthy), through the real router
 * and the real SDK.
 */
describe('AI routing: failover across upstreams', () => {
  let t: TestApp;
  let p: Providers;
  let backup: OpenAiTestServer;
  let admin: TestUser;
  const clock = new HandClock();
  const ask = { modelId: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] };
  const first = () => p.openai;
  const scrape = async () =>
    parseMetrics(
      (await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text,
    );
  const state = async (name: string) => {
    const m = await scrape();
    return ['healthy', 'cooling', 'failing'].find(
      (s) => sample(m, 'upstream_state', { upstream: name, state: s }) === 1,
    );
  };
  const resetHealth = () => t.db.query('DELETE FROM upstream_states');

  beforeAll(async () => {
    p = await startProviders();
    backup = await new OpenAiTestServer().start();
    t = await createTestApp(
      {
        ...p.env,
        METRICS_TOKEN: TOKEN,
        UPSTREAM_COOLDOWN_MS: String(COOLDOWN_MS),
        AI_RETRY_ATTEMPTS: '1',
      },
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
    clock.tick(60_000); // past every cooldown of the test before
    await resetHealth();
  });

  it('answers from the second upstream at once when the first says 429, then skips the first while it cools', async () => {
    const u = await newUser(t, { credits: 100 });
    first().reply = { status: 429, retryAfter: '2' };
    const res = await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    expect(res.body.modelId).toBe('gpt-4o-mini');
    expect([first().requests.length, backup.requests.length]).toEqual([1, 1]);
    // The backup was sent its own key and the catalogue model id.
    expect(backup.requests[0].headers.authorization).toBe('Bearer sk-backup-key');
    expect(backup.requests[0].body.model).toBe('gpt-4o-mini');
    expect(await state('env:openai')).toBe('cooling');

    first().reply = {};
    await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    expect([first().requests.length, backup.requests.length]).toEqual([1, 2]);

    clock.tick(2_001); // Retry-After ended: the first upstream leads again
    await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    expect([first().requests.length, backup.requests.length]).toEqual([2, 2]);

    // Three answers, three CONSUMPTION entries; the failed attempt cost nothing.
    const books = await ledgerOf(t, u.user.id);
    expect(books.entries).toBe(4); // the test balance and three answers
    expect(books.credits).toBe(books.ledgerSum);
    expect(await unbalanced((sql, params) => t.db.query(sql, params))).toEqual([]);
  });

  it('cools an upstream down after three 500s in a row, and /metrics shows it', async () => {
    const u = await newUser(t, { credits: 100 });
    const before = await scrape();
    first().reply = { status: 500 };
    for (let i = 0; i < 3; i++)
      await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    expect([first().requests.length, backup.requests.length]).toEqual([3, 3]);
    const after = await scrape();
    expect(sample(after, 'upstream_state', { upstream: 'env:openai', state: 'cooling' })).toBe(1);
    expect(
      sample(after, 'upstream_cooldowns_total', { upstream: 'env:openai' }) -
        sample(before, 'upstream_cooldowns_total', { upstream: 'env:openai' }),
    ).toBe(1);
    expect(
      sample(after, 'upstream_errors_total', { upstream: 'env:openai', class: 'server' }) -
        sample(before, 'upstream_errors_total', { upstream: 'env:openai', class: 'server' }),
    ).toBe(3);

    await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    expect([first().requests.length, backup.requests.length]).toEqual([3, 4]);
    expect((await ledgerOf(t, u.user.id)).entries).toBe(5);
  });

  it('marks an upstream that answers 401 failing, without retrying it or moving on; the next call avoids it', async () => {
    const u = await newUser(t, { credits: 100 });
    first().reply = { status: 401 };
    const res = await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(401);
    expect(res.body.code).toBe('INVALID_API_KEY');
    expect([first().requests.length, backup.requests.length]).toEqual([1, 0]);
    expect(await state('env:openai')).toBe('failing');
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });

    first().reply = {};
    await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    expect([first().requests.length, backup.requests.length]).toEqual([1, 1]);
  });

  it('does not mark an upstream for a 400 (the request is the caller’s)', async () => {
    const u = await newUser(t, { credits: 100 });
    first().reply = { status: 400 };
    await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(500);
    expect([first().requests.length, backup.requests.length]).toEqual([1, 0]);
    expect(await state('env:openai')).toBe('healthy');
  });

  it('streams from the second upstream when the first fails before its first chunk', async () => {
    const u = await newUser(t, { credits: 100 });
    first().reply = { status: 503 };
    backup.reply = { text: 'a b c' };
    const res = await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .set('Accept', 'text/event-stream')
      .send(ask)
      .expect(200);
    expect(res.text).toContain('"modelId":"gpt-4o-mini"');
    expect([first().requests.length, backup.requests.length]).toEqual([1, 1]);
  });

  it('calls an OpenAI-compatible upstream listing a Claude model through the OpenAI adapter', async () => {
    const u = await newUser(t, { credits: 100 });
    await t.http
      .post('/api/admin/upstreams')
      .set(admin.auth)
      .send({
        provider: 'openai-compatible',
        name: 'compat-claude',
        baseUrl: backup.url,
        models: ['claude-haiku-4-5'],
        modelMap: { 'claude-haiku-4-5': 'local-haiku' },
        priority: 5,
      })
      .expect(201);
    const res = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ ...ask, modelId: 'claude-haiku-4-5' })
      .expect(200);
    expect(res.body.modelId).toBe('claude-haiku-4-5');
    expect(backup.requests.map((r) => [r.path, r.body.model])).toEqual([
      ['/v1/chat/completions', 'local-haiku'],
    ]);
    expect(p.anthropic.requests).toHaveLength(0);
  });

  it('operator: replies keep coming while the first server is down, and go back to it after the cooldown', async () => {
    const u = await newUser(t, { credits: 100 });
    const port = Number(new URL(first().url).port);
    await first().stop();
    for (let i = 0; i < 4; i++)
      await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    expect(backup.requests.length).toBe(4);
    expect(await state('env:openai')).toBe('cooling');

    await first().start(port);
    await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    expect([first().requests.length, backup.requests.length]).toEqual([0, 5]);

    clock.tick(COOLDOWN_MS + 1);
    await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    expect([first().requests.length, backup.requests.length]).toEqual([1, 5]);
    expect(await state('env:openai')).toBe('healthy');
  });
});
