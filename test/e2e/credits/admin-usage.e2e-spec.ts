import { newTeam, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

interface Row {
  key: string | null;
  label: string | null;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  cacheSavings: number;
  credits: number;
}

const FROM = '2026-02-10';
const TO = '2026-02-12';
const fail = (code: string) => ({ error: expect.any(String), code });

/**
 * GET /api/admin/usage: every user's consumption from the ledger, grouped by user, team, model,
 * API key or day, filtered by a user or a team's members, a page at a time.
 */
describe('Admin usage explorer', () => {
  let t: TestApp;
  let p: Providers;
  let admin: TestUser;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, APP_TIMEZONE: 'UTC' });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });

  /** One metered reply made at `at`; the local server reports the tokens. Its cost. */
  async function reply(
    auth: { Authorization: string },
    userId: string,
    modelId: string,
    tokens: [number, number],
    at: string,
  ): Promise<number> {
    p.openai.reply = { usage: { prompt_tokens: tokens[0], completion_tokens: tokens[1] } };
    const res = await t.http
      .post('/api/ai/generate')
      .set(auth)
      .send({ modelId, messages: [{ role: 'user', content: 'Hello' }] })
      .expect(200);
    await t.db.query(
      `UPDATE credit_transactions SET "createdAt" = $2 WHERE id = (
         SELECT id FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'
         ORDER BY "createdAt" DESC LIMIT 1)`,
      [userId, at],
    );
    return res.body.cost as number;
  }
  const joinedAt = (teamId: string, userId: string, at: string) =>
    t.db.query(`UPDATE team_members SET "createdAt" = $3 WHERE "teamId" = $1 AND "userId" = $2`, [
      teamId,
      userId,
      at,
    ]);
  const read = async (query: Record<string, string | number>) =>
    (await t.http.get('/api/admin/usage').query(query).set(admin.auth).expect(200)).body;
  const sums = (requests: number, prompt: number, completion: number, credits: number) => ({
    requests,
    promptTokens: prompt,
    completionTokens: completion,
    cachedTokens: 0,
    cacheSavings: 0,
    credits,
  });

  it('groups the range by user, team, model, key and day; totals add up to the ledger', async () => {
    const [a, b, c] = await Promise.all(
      ['a', 'b', 'c'].map((n) => newUser(t, { email: `${n}-usage@example.com`, credits: 5000 })),
    );
    const key = await t.http
      .post('/api/keys')
      .set(b.auth)
      .send({ name: 'nightly script', scopes: ['ai'] })
      .expect(201);
    const a1 = await reply(a.auth, a.user.id, 'gpt-4o', [100, 50], '2026-02-10T10:00:00Z');
    const a2 = await reply(a.auth, a.user.id, 'gpt-4o-mini', [200, 100], '2026-02-11T10:00:00Z');
    const keyAuth = { Authorization: `Bearer ${key.body.key}` };
    const b1 = await reply(keyAuth, b.user.id, 'gpt-4o-mini', [300, 100], '2026-02-11T11:00:00Z');
    const c1 = await reply(c.auth, c.user.id, 'gpt-4o', [50, 50], '2026-02-10T12:00:00Z');
    const c2 = await reply(c.auth, c.user.id, 'gpt-4o', [60, 40], '2026-02-12T09:00:00Z');
    // Outside the range: not counted.
    await reply(c.auth, c.user.id, 'gpt-4o', [10, 10], '2026-02-13T00:00:00Z');

    // Alpha: a and b, members long before. Beta: c and a, who joined on the 11th, so c's entry
    // of the 10th is not Beta's, and a's of the 11th counts for both teams.
    const alpha = await newTeam(t, a, { name: 'Alpha', members: [[b, 'MEMBER']] });
    const beta = await newTeam(t, c, { name: 'Beta', members: [[a, 'MEMBER']] });
    for (const u of [a, b]) await joinedAt(alpha.id, u.user.id, '2026-01-01T00:00:00Z');
    for (const u of [c, a]) await joinedAt(beta.id, u.user.id, '2026-02-11T00:00:00Z');

    const range = { from: FROM, to: TO };
    const byUser = await read({ ...range, groupBy: 'user' });
    const totals = sums(5, 710, 340, a1 + a2 + b1 + c1 + c2);
    expect(byUser).toEqual({
      from: FROM,
      to: TO,
      groupBy: 'user',
      timezone: 'UTC',
      data: expect.any(Array),
      groups: 3,
      totals,
      nextCursor: null,
    });
    const userRows = [
      { key: a.user.id, label: a.user.email, ...sums(2, 300, 150, a1 + a2) },
      { key: b.user.id, label: b.user.email, ...sums(1, 300, 100, b1) },
      { key: c.user.id, label: c.user.email, ...sums(2, 110, 90, c1 + c2) },
    ].sort((x, y) => y.credits - x.credits || y.requests - x.requests);
    expect(byUser.data).toEqual(userRows);
    const [ledger] = await t.db.query(
      `SELECT -SUM(amount)::int AS n FROM credit_transactions
       WHERE type = 'CONSUMPTION' AND "createdAt" >= $1 AND "createdAt" < $2`,
      ['2026-02-10T00:00:00Z', '2026-02-13T00:00:00Z'],
    );
    expect(byUser.totals.credits).toBe(ledger.n);

    const byTeam = await read({ ...range, groupBy: 'team' });
    expect(byTeam.totals).toEqual(totals);
    expect(new Map(byTeam.data.map((r: Row) => [r.label, r]))).toEqual(
      new Map([
        ['Alpha', { key: alpha.id, label: 'Alpha', ...sums(3, 600, 250, a1 + a2 + b1) }],
        ['Beta', { key: beta.id, label: 'Beta', ...sums(2, 260, 140, a2 + c2) }],
      ]),
    );

    const byModel = await read({ ...range, groupBy: 'model' });
    expect(
      new Map(byModel.data.map((r: Row) => [r.key, [r.label, r.requests, r.credits]])),
    ).toEqual(
      new Map([
        ['gpt-4o', ['gpt-4o', 3, a1 + c1 + c2]],
        ['gpt-4o-mini', ['gpt-4o-mini', 2, a2 + b1]],
      ]),
    );

    const byKey = await read({ ...range, groupBy: 'key' });
    expect(new Map(byKey.data.map((r: Row) => [r.key, [r.label, r.requests, r.credits]]))).toEqual(
      new Map([
        [key.body.id, ['nightly script', 1, b1]],
        [null, [null, 4, a1 + a2 + c1 + c2]],
      ]),
    );

    const byDay = await read({ ...range, groupBy: 'day' });
    expect(byDay.data.map((r: Row) => [r.key, r.label, r.requests, r.credits])).toEqual([
      ['2026-02-10', '2026-02-10', 2, a1 + c1],
      ['2026-02-11', '2026-02-11', 2, a2 + b1],
      ['2026-02-12', '2026-02-12', 1, c2],
    ]);

    // Filters: one team's members since they joined; one user.
    const betaUsers = await read({ ...range, groupBy: 'user', teamId: beta.id });
    expect(new Map(betaUsers.data.map((r: Row) => [r.key, r.credits]))).toEqual(
      new Map([
        [a.user.id, a2],
        [c.user.id, c2],
      ]),
    );
    expect(betaUsers.totals.credits).toBe(a2 + c2);
    const cDays = await read({ ...range, groupBy: 'day', userId: c.user.id });
    expect(cDays.data.map((r: Row) => r.credits)).toEqual([c1, 0, c2]);
    const nobody = await read({ ...range, userId: '00000000-0000-4000-8000-000000000000' });
    expect(nobody).toMatchObject({ data: [], groups: 0, totals: sums(0, 0, 0, 0) });

    // Pages: two groups, then the last one; the totals are the whole range's on each page.
    const first = await read({ ...range, groupBy: 'user', limit: 2 });
    expect(first.data).toEqual(userRows.slice(0, 2));
    expect(first.totals).toEqual(totals);
    const second = await read({ ...range, groupBy: 'user', limit: 2, cursor: first.nextCursor });
    expect(second).toMatchObject({ data: userRows.slice(2), groups: 3, nextCursor: null });
  });

  it('is for admins only, and refuses a bad range or cursor with 400', async () => {
    const u = await newUser(t);
    const denied = await t.http.get('/api/admin/usage').set(u.auth).expect(403);
    expect(denied.body).toEqual(fail('FORBIDDEN'));
    await t.http.get('/api/admin/usage').expect(401);
    for (const query of [
      { from: TO, to: FROM },
      { from: '2024-01-01', to: '2026-01-01' },
      { from: '2026-02-30' },
      { groupBy: 'week' },
      { teamId: 'alpha' },
      { cursor: 'not-ours' },
    ]) {
      const res = await t.http.get('/api/admin/usage').query(query).set(admin.auth).expect(400);
      expect(res.body).toEqual(fail('VALIDATION_FAILED'));
    }
    // The default range: the last 30 days up to today.
    const res = await read({});
    expect(res.groupBy).toBe('user');
    expect(
      (Date.parse(`${res.to}T00:00:00Z`) - Date.parse(`${res.from}T00:00:00Z`)) / 86_400_000,
    ).toBe(29);
  });
});
