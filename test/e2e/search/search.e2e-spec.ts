import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreditsService } from '../../../src/credits/credits.service';
import { MessageVectorsRepository } from '../../../src/search/message-vectors.repository';
import { SearchIndexer } from '../../../src/search/search-indexer.service';
import { ledgerOf, newChat, newTeam, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitFor } from '../../support/wait';

interface Hit {
  chat: { id: string; title: string };
  message: { id: string; role: string; createdAt: string };
  snippet: string;
  highlights: [number, number][];
  score: number;
}

/** Resolves when `done()` is true, polled every 50 ms (the test's timeout bounds it). */
async function until(done: () => Promise<boolean>): Promise<void> {
  expect(await waitFor(done, Infinity, 50)).toBe(true);
}

/**
 * A catalogue with an embedding model at 0.001 credits' worth per token, so one token costs
 * exactly 1 credit: ceil(tokens × 0.001 × 1000) = tokens.
 */
function catalogueFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'search-models-')), 'models.json');
  const models = [
    {
      id: 'gpt-4o-mini',
      name: 'GPT-4o mini',
      providerId: 'openai',
      maxTokens: 128000,
      costPerToken: '0.0000006',
    },
    {
      id: 'embed-test',
      name: 'Embed',
      providerId: 'openai',
      kind: 'embedding',
      maxTokens: 8191,
      costPerToken: '0.001',
    },
  ];
  writeFileSync(file, JSON.stringify(models));
  return file;
}

const tokens = (text: string) => Math.ceil(Array.from(text).length / 4);
const highlighted = (h: Hit) => h.highlights.map(([a, b]) => h.snippet.slice(a, b));

describe('Chat search', () => {
  let t: TestApp;
  let p: Providers;
  let indexer: SearchIndexer;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({
      ...p.env,
      MODELS_FILE: catalogueFile(),
      EMBEDDINGS_MODEL: 'embed-test',
      EMBEDDINGS_DIMENSIONS: '64',
      JOBS_POLL_INTERVAL_SECONDS: '0.5',
      SEARCH_INDEX_DELAY_SECONDS: '1',
    });
    indexer = t.app.get(SearchIndexer);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  const search = async (u: TestUser, q: string, mode = 'keyword', extra = {}) =>
    (
      await t.http
        .get('/api/search')
        .query({ q, mode, ...extra })
        .set(u.auth)
        .expect(200)
    ).body.data as Hit[];

  it('finds Chinese by bigrams: 数据库 finds 我们的数据库很慢, highlighted', async () => {
    const u = await newUser(t);
    const chat = await newChat(t, u, {
      title: '慢查询',
      messages: ['我们的数据库很慢', '加一个索引吧'],
    });
    const [hit, ...rest] = await search(u, '数据库');
    expect(rest).toEqual([]);
    expect(hit).toMatchObject({
      chat: { id: chat.id, title: '慢查询' },
      message: { role: 'USER' },
      snippet: '我们的数据库很慢',
    });
    expect(highlighted(hit)).toEqual(['数据库']);
  });

  it('stems English: "running" finds "runs", not an unrelated message', async () => {
    const u = await newUser(t);
    await newChat(t, u, { messages: ['The job runs every night', 'Nothing about jobs here'] });
    const hits = await search(u, 'running');
    expect(hits.map((h) => h.snippet)).toEqual(['The job runs every night']);
    expect(highlighted(hits[0])).toEqual(['runs']);
  });

  it('searches mixed English and Chinese text', async () => {
    const u = await newUser(t);
    await newChat(t, u, { messages: ['PostgreSQL 数据库 indexes are fast'] });
    expect(await search(u, 'indexes 数据库')).toHaveLength(1);
    expect(await search(u, 'indexes 汽车')).toEqual([]);
  });

  it("finds a team's shared chat for a member, who loses it on leaving; others never see it", async () => {
    const [owner, member, stranger] = [await newUser(t), await newUser(t), await newUser(t)];
    const team = await newTeam(t, owner, { members: [[member, 'MEMBER']] });
    await newChat(t, owner, { messages: ['quarterly zebra forecast'], teamId: team.id });
    expect(await search(member, 'zebra')).toHaveLength(1);
    expect(await search(stranger, 'zebra')).toEqual([]);
    await t.http
      .delete(`/api/teams/${team.id}/members/${member.user.id}`)
      .set(member.auth)
      .expect(200);
    expect(await search(member, 'zebra')).toEqual([]);
    expect(await search(owner, 'zebra')).toHaveLength(1);
  });

  it('semantic: "car" finds "automobile", which keyword search does not; hybrid ranks a match of both first', async () => {
    const u = await newUser(t, { credits: 1000 });
    const chat = await newChat(t, u, {
      messages: ['An automobile broke down on the bridge', 'My car is red', 'Bananas are yellow'],
    });
    expect(await indexer.indexChat(chat.id)).toBe(3);
    expect(await search(u, 'car')).toHaveLength(1);
    const semantic = await search(u, 'car', 'semantic');
    expect(semantic.map((h) => h.snippet).sort()).toEqual([
      'An automobile broke down on the bridge',
      'My car is red',
    ]);
    const hybrid = await search(u, 'car', 'hybrid');
    expect(hybrid[0].snippet).toBe('My car is red');
    expect(highlighted(hybrid[0])).toEqual(['car']);
    expect(hybrid.map((h) => h.snippet)).toContain('An automobile broke down on the bridge');
  });

  it('hybrid answers with its keyword half when the query cannot be embedded; semantic refuses', async () => {
    const u = await newUser(t, { credits: 0 });
    await newChat(t, u, { messages: ['My car is red', 'Bananas are yellow'] });
    const hybrid = await search(u, 'car', 'hybrid');
    expect(hybrid.map((h) => h.snippet)).toEqual(['My car is red']);
    const refused = await t.http
      .get('/api/search')
      .query({ q: 'car', mode: 'semantic' })
      .set(u.auth);
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('INSUFFICIENT_CREDITS');
    expect(p.openai.requests.filter((r) => r.path === '/v1/embeddings')).toHaveLength(0);
  });

  it('charges embeddings to the ledger, exact to the credit: one entry per author and batch, one per query', async () => {
    const u = await newUser(t, { credits: 500 });
    const texts = ['x'.repeat(41), 'y'.repeat(8), 'z'.repeat(1)];
    const chat = await newChat(t, u, { messages: texts });
    const before = await ledgerOf(t, u.user.id);
    await indexer.indexChat(chat.id);
    const entries: { amount: number; description: string }[] = await t.db.query(
      `SELECT amount, description FROM credit_transactions
       WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt"`,
      [u.user.id],
    );
    const indexing = texts.reduce((n, x) => n + tokens(x), 0); // 11 + 2 + 1 tokens = 14 credits
    expect(entries).toEqual([{ amount: -indexing, description: 'embeddings' }]);
    await search(u, 'abcdefghi', 'semantic'); // 9 characters: 3 tokens
    const after = await ledgerOf(t, u.user.id);
    expect(after.credits).toBe(before.credits - indexing - 3);
    expect(after.credits).toBe(after.ledgerSum);
    const [last] = await t.db.query(
      `SELECT amount, description FROM credit_transactions WHERE "userId" = $1 ORDER BY "createdAt" DESC LIMIT 1`,
      [u.user.id],
    );
    expect(last).toEqual({ amount: -3, description: 'embeddings' });
  });

  it('does not embed a message twice, and skips a message deleted meanwhile', async () => {
    const u = await newUser(t, { credits: 100 });
    const chat = await newChat(t, u, { messages: ['first message', 'second message'] });
    expect(await indexer.indexChat(chat.id)).toBe(2);
    const calls = p.openai.requests.length;
    expect(await indexer.indexChat(chat.id)).toBe(0);
    expect(p.openai.requests.length).toBe(calls);
    const stored = await t.db.transaction((m) =>
      t.app
        .get(MessageVectorsRepository)
        .store(m, 'embed-test', [
          { messageId: '00000000-0000-4000-8000-000000000000', vector: [1, 0] },
        ]),
    );
    expect(stored).toEqual([]);
  });

  it('pauses an author whose balance cannot pay, with no provider call, and resumes after a top-up', async () => {
    const u = await newUser(t, { credits: 0 });
    const chat = await newChat(t, u, { messages: ['w'.repeat(40)] }); // 10 credits
    expect(await indexer.indexChat(chat.id)).toBe(0);
    expect(p.openai.requests).toHaveLength(0);
    expect(
      await t.db.query('SELECT "chatId" FROM search_index_pauses WHERE "userId" = $1', [u.user.id]),
    ).toEqual([{ chatId: chat.id }]);
    const paused = () =>
      t.db.query('SELECT 1 FROM search_index_pauses WHERE "userId" = $1', [u.user.id]);
    await indexer.resumePaused();
    expect(await paused()).toHaveLength(1); // still nothing to pay with
    await t.app.get(CreditsService).grant(u.user.id, 10, 'PURCHASE', 'top-up');
    expect(await indexer.resumePaused()).toBeGreaterThanOrEqual(1);
    expect(await paused()).toHaveLength(0);
    await until(async () => {
      const [row] = await t.db.query(
        'SELECT count(*)::int AS n FROM message_vectors WHERE "chatId" = $1',
        [chat.id],
      );
      return row.n === 1;
    });
    const after = await ledgerOf(t, u.user.id);
    expect(after).toMatchObject({ credits: 0, ledgerSum: 0 });
  });

  it('indexes a saved exchange through the job queue, retrying a provider failure', async () => {
    const u = await newUser(t, { credits: 1000 });
    const res = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId: 'gpt-4o-mini', messages: [{ role: 'user', content: 'my automobile' }] })
      .expect(200);
    p.openai.reply = { status: 500 };
    await until(async () => p.openai.requests.some((r) => r.path === '/v1/embeddings'));
    p.openai.reply = {};
    await until(async () => {
      const [row] = await t.db.query(
        'SELECT count(*)::int AS n FROM message_vectors WHERE "chatId" = $1',
        [res.body.chatId],
      );
      return row.n === 2;
    });
    const hits = await search(u, 'car', 'semantic');
    expect(hits[0]).toMatchObject({ message: { role: 'USER' }, snippet: 'my automobile' });
  });

  it('backfills messages saved before indexing existed (search:reindex)', async () => {
    const u = await newUser(t, { credits: 100 });
    const chat = await newChat(t, u, { messages: ['old message one', 'old message two'] });
    expect(await indexer.backfill()).toBeGreaterThanOrEqual(1);
    await until(async () => {
      const [row] = await t.db.query(
        'SELECT count(*)::int AS n FROM message_vectors WHERE "chatId" = $1',
        [chat.id],
      );
      return row.n === 2;
    });
  });

  it('refuses bad queries and cursors', async () => {
    const u = await newUser(t);
    for (const q of ['', 'x'.repeat(501)]) {
      await t.http.get('/api/search').query({ q }).set(u.auth).expect(400);
    }
    await t.http.get('/api/search').query({ q: 'a', mode: 'fuzzy' }).set(u.auth).expect(400);
    await t.http.get('/api/search').query({ q: 'a\u0000b' }).set(u.auth).expect(400);
    await t.http.get('/api/search?q=%ED%A0%80%F0').set(u.auth).expect(200);
    await t.http.get('/api/search').query({ q: 'a', cursor: 'nope' }).set(u.auth).expect(400);
    await t.http.get('/api/search').query({ q: 'a' }).expect(401);
  });

  it('pages results with a cursor', async () => {
    const u = await newUser(t);
    await newChat(t, u, { messages: ['walrus one', 'walrus two', 'walrus three'] });
    const first = await t.http
      .get('/api/search')
      .query({ q: 'walrus', mode: 'keyword', limit: 2 })
      .set(u.auth)
      .expect(200);
    expect(first.body.data).toHaveLength(2);
    const second = await t.http
      .get('/api/search')
      .query({ q: 'walrus', mode: 'keyword', limit: 2, cursor: first.body.nextCursor })
      .set(u.auth)
      .expect(200);
    expect(second.body).toMatchObject({ data: [expect.anything()], nextCursor: null });
  });
});
