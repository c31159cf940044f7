import { UsersService } from '../../../src/users/users.service';
import { SearchIndexer } from '../../../src/search/search-indexer.service';
import { ledgerOf, newChat, newUser, type TestUser } from '../../support/factories';
import { budgetMismatches } from '../../support/budgets';
import { startProviders, type Providers } from '../../support/providers';
import { parseSse } from '../../support/sse';
import { createTestApp, type TestApp } from '../../support/test-app';
import { createTask, dailyTask, finished, runNow, stopTaskTick } from '../tasks/tasks.helpers';

/**
 * The budget gate beyond the HTTP routes: a scheduled task's run, the second call of a tool
 * loop and the indexing of a chat for search are each refused by a binding budget, before any
 * upstream call, charging nothing past the limit; and the admins' view of windows near their
 * limit.
 */
describe('Budgets: tasks, tool loops, search indexing and the near-limit view', () => {
  let t: TestApp;
  let p: Providers;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({
      ...p.env,
      EMBEDDINGS_MODEL: 'text-embedding-3-small',
      EMBEDDINGS_DIMENSIONS: '64',
      JOBS_POLL_INTERVAL_SECONDS: '0.5',
      SEARCH_INDEX_DELAY_SECONDS: '3600',
    });
    await stopTaskTick(t);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  async function capped(u: TestUser, limit: number, window = 'day') {
    await t.http
      .put('/api/budgets')
      .set(u.auth)
      .send({ scope: 'user', windows: [{ window, limit }] })
      .expect(200);
  }
  const consumed = async (u: TestUser) =>
    (
      await t.db.query(
        `SELECT COALESCE(-SUM(amount), 0)::int AS n FROM credit_transactions
         WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
        [u.user.id],
      )
    )[0].n as number;

  it('skips a task run past a budget with BUDGET_EXCEEDED, charging nothing', async () => {
    const u = await newUser(t, { credits: 1000 });
    await t.app.get(UsersService).setPlan(u.user.id, 'PRO');
    await capped(u, 0);
    const task = await createTask(t, u, dailyTask());
    const run = await finished(t, u, task.id, (await runNow(t, u, task.id)).id);
    expect(run).toMatchObject({
      status: 'skipped',
      cost: 0,
      error: { code: 'BUDGET_EXCEEDED', message: expect.stringContaining('step "prompt"') },
    });
    expect(p.openai.requests).toHaveLength(0);
    expect(await ledgerOf(t, u.user.id)).toMatchObject({ credits: 1000, ledgerSum: 1000 });
  });

  it("refuses a tool loop's next call past a budget: the first stays charged, no second upstream call", async () => {
    const u = await newUser(t, { credits: 1000 });
    // gpt-4o with max 1000 tokens holds 11 credits a call and the first reply costs 1: the
    // first call fits a limit of 11, the second (1 used + 11 held) does not.
    await capped(u, 11);
    const calc = { name: 'calculator', arguments: { expression: '2^10' } };
    p.openai.script = [{ toolCalls: [calc] }, { text: 'It is 1024.' }] as never;
    const res = await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .set('Accept', 'text/event-stream')
      .send({
        modelId: 'gpt-4o',
        plugins: ['calculator'],
        maxTokens: 1000,
        messages: [{ role: 'user', content: 'What is 2^10?' }],
      });
    expect(res.status).toBe(200);
    const { events } = parseSse(res.text);
    const names = events.map(([e]) => e);
    expect(names.slice(0, 2)).toEqual(['tool_call', 'tool_result']);
    const error = events.find(([e]) => e === 'error');
    expect(error?.[1]).toMatchObject({ code: 'BUDGET_EXCEEDED' });
    expect(p.openai.requests).toHaveLength(1);
    expect(await consumed(u)).toBe(1);
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger.credits).toBe(ledger.ledgerSum);
    expect(await budgetMismatches(t.db)).toEqual([]);
  });

  it("pauses indexing a chat whose author's budget is spent: no embedding call, no charge", async () => {
    const u = await newUser(t, { credits: 1000 });
    await capped(u, 0);
    const chat = await newChat(t, u, { messages: ['w'.repeat(40)] });
    expect(await t.app.get(SearchIndexer).indexChat(chat.id)).toBe(0);
    expect(p.openai.requests.filter((r) => r.path === '/v1/embeddings')).toHaveLength(0);
    expect(await consumed(u)).toBe(0);
    expect(
      await t.db.query('SELECT "chatId" FROM search_index_pauses WHERE "userId" = $1', [u.user.id]),
    ).toEqual([{ chatId: chat.id }]);
  });

  describe('GET /api/admin/budgets/near-limit', () => {
    it('lists windows at or above the ratio, fullest first, to admins only', async () => {
      const admin = await newUser(t, { role: 'ADMIN' });
      const full = await newUser(t, { credits: 1000 });
      const idle = await newUser(t, { credits: 1000 });
      await capped(full, 12);
      await capped(idle, 1000, 'week');
      await t.http
        .post('/api/ai/generate')
        .set(full.auth)
        .send({ modelId: 'gpt-4o', maxTokens: 1000, messages: [{ role: 'user', content: 'Hi' }] })
        .expect(200);
      const used = await consumed(full);
      expect(used).toBeGreaterThan(0);

      const near = await t.http
        .get('/api/admin/budgets/near-limit')
        .query({ ratio: used / 12 })
        .set(admin.auth)
        .expect(200);
      const mine = near.body.data.filter((l: { scopeId: string }) =>
        [full.user.id, idle.user.id].includes(l.scopeId),
      );
      expect(mine).toEqual([
        expect.objectContaining({
          scope: 'user',
          scopeId: full.user.id,
          window: 'day',
          limit: 12,
          used,
          held: 0,
          remaining: 12 - used,
        }),
      ]);
      const fullest = near.body.data.map((l: { used: number; held: number; limit: number }) =>
        l.limit ? (l.used + l.held) / l.limit : 1,
      );
      expect(fullest).toEqual([...fullest].sort((a: number, b: number) => b - a));
      // At ratio 0 every window is near: the idle one too.
      const all = await t.http
        .get('/api/admin/budgets/near-limit')
        .query({ ratio: 0, limit: 200 })
        .set(admin.auth)
        .expect(200);
      expect(all.body.data.map((l: { scopeId: string }) => l.scopeId)).toEqual(
        expect.arrayContaining([full.user.id, idle.user.id]),
      );

      const refused = await t.http.get('/api/admin/budgets/near-limit').set(full.auth);
      expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
      await t.http.get('/api/admin/budgets/near-limit').expect(401);
      const bad = await t.http.get('/api/admin/budgets/near-limit?ratio=2').set(admin.auth);
      expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    });
  });
});
