import { SearchIndexer } from '../../../src/search/search-indexer.service';
import { OpenAiTestServer } from '../../servers/openai-server';
import { ledgerOf, newChat, newUser, type TestUser } from '../../support/factories';
import { moved, parseMetrics } from '../../support/metrics';
import { startProviders, type Providers } from '../../support/providers';
import { HandClock } from '../../support/hand-clock';
import { createTestApp, type TestApp } from '../../support/test-app';
import { unbalanced } from '../../faults/support/ledger';

const TOKEN = 'metrics-token-0123456789';
const MODEL = 'text-embedding-3-small';

/**
 * Embeddings fail over across the upstreams of their provider like chat calls: the
 * environment's OpenAI upstream (`env:openai`, priority 0) and an OpenAI-compatible server added
 * through the admin API (`backup`, priority -1, so the order is fixed while both are healthy),
 * through the real router and the real SDK, for `/v1/embeddings` and for chat search indexing.
 */
describe('AI routing: embeddings across upstreams', () => {
  let t: TestApp;
  let p: Providers;
  let backup: OpenAiTestServer;
  let admin: TestUser;
  const clock = new HandClock();
  const first = () => p.openai;
  const embeds = (s: OpenAiTestServer) => s.requests.filter((r) => r.path === '/v1/embeddings');
  const scrape = async () =>
    parseMetrics(
      (await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text,
    );
  const attempts = (before: Map<string, number>, after: Map<string, number>) =>
    Object.fromEntries(
      ['env:openai', 'backup'].flatMap((upstream) =>
        ['ok', 'retryable', 'misconfigured'].map((outcome) => [
          `${upstream} ${outcome}`,
          moved(before, after, 'upstream_requests_total', { upstream, outcome }),
        ]),
      ),
    );
  const stateOf = async (id: string) =>
    (await t.http.get('/api/admin/upstreams').set(admin.auth).expect(200)).body.data.find(
      (u: { id: string }) => u.id === id,
    )?.state;
  const embed = (u: TestUser, input: string[]) =>
    t.http.post('/v1/embeddings').set(u.auth).send({ model: MODEL, input });

  beforeAll(async () => {
    p = await startProviders();
    backup = await new OpenAiTestServer().start();
    t = await createTestApp(
      {
        ...p.env,
        METRICS_TOKEN: TOKEN,
        AI_RETRY_ATTEMPTS: '2',
        EMBEDDINGS_MODEL: MODEL,
        EMBEDDINGS_DIMENSIONS: '64',
        // Saved messages are indexed by the test itself, never by a queued job.
        SEARCH_INDEX_DELAY_SECONDS: '3600',
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
        models: [MODEL],
        modelMap: { [MODEL]: 'local-embedder' },
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
    await t.db.query('DELETE FROM upstream_states');
  });

  it.each([500, 429])(
    '/v1/embeddings answers from the second upstream at once when the first says %i',
    async (status) => {
      const u = await newUser(t, { credits: 100 });
      const before = await scrape();
      first().reply = { status };
      const res = await embed(u, ['The food was delicious', 'slow']).expect(200);
      expect(res.body.data).toHaveLength(2);
      expect([embeds(first()).length, embeds(backup).length]).toEqual([1, 1]);
      // The backup got its own key and the model id of its map.
      expect(embeds(backup)[0].headers.authorization).toBe('Bearer sk-backup-key');
      expect(embeds(backup)[0].body.model).toBe('local-embedder');
      expect(attempts(before, await scrape())).toMatchObject({
        'env:openai retryable': 1,
        'backup ok': 1,
      });
      // Charged once, as without routing: 6 + 1 tokens.
      const books = await ledgerOf(t, u.user.id);
      expect(books.entries).toBe(2);
      expect(books.credits).toBe(books.ledgerSum);
      expect(await unbalanced((sql, params) => t.db.query(sql, params))).toEqual([]);
    },
  );

  it('retries the whole list when every upstream fails, then fails without a charge', async () => {
    const u = await newUser(t, { credits: 100 });
    const before = await scrape();
    first().reply = { status: 503 };
    backup.reply = { status: 500 };
    // The last upstream's 500 is the answer (SERVICE_UNAVAILABLE).
    await embed(u, ['hello']).expect(500);
    // AI_RETRY_ATTEMPTS=2 passes over both upstreams twice.
    expect([embeds(first()).length, embeds(backup).length]).toEqual([2, 2]);
    expect(attempts(before, await scrape())).toMatchObject({
      'env:openai retryable': 2,
      'backup retryable': 2,
    });
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
  });

  it('marks an upstream answering 401 failing and fails the call, without the next upstream or a retry', async () => {
    const u = await newUser(t, { credits: 100 });
    const before = await scrape();
    first().reply = { status: 401 };
    await embed(u, ['hello']).expect(401);
    expect([embeds(first()).length, embeds(backup).length]).toEqual([1, 0]);
    expect(attempts(before, await scrape())).toMatchObject({
      'env:openai misconfigured': 1,
      'backup ok': 0,
    });
    expect(await stateOf('env:openai')).toBe('failing');
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });

    // The failing upstream now comes last: the next call is answered by the backup.
    first().reply = {};
    await embed(u, ['hello']).expect(200);
    expect([embeds(first()).length, embeds(backup).length]).toEqual([1, 1]);
  });

  it('indexes a chat for search through the second upstream when the first says 500', async () => {
    const u = await newUser(t, { credits: 100 });
    const chat = await newChat(t, u, { messages: ['my automobile', 'a fast car'] });
    const before = await scrape();
    first().reply = { status: 500 };
    await expect(t.app.get(SearchIndexer).indexChat(chat.id)).resolves.toBe(2);
    expect([embeds(first()).length, embeds(backup).length]).toEqual([1, 1]);
    expect(embeds(backup)[0].body.input).toEqual(['my automobile', 'a fast car']);
    expect(attempts(before, await scrape())).toMatchObject({
      'env:openai retryable': 1,
      'backup ok': 1,
    });
  });
});
