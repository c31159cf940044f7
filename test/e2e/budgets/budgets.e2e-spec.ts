import { newTeam, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

const ask = { modelId: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], maxTokens: 100 };

/** Budgets over HTTP: who sets what, bad input, what is left, GET /v1/key. */
describe('Budgets (routes)', () => {
  let t: TestApp;
  let p: Providers;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, APP_TIMEZONE: 'Asia/Shanghai' });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  const put = (u: TestUser, body: object) => t.http.put('/api/budgets').set(u.auth).send(body);
  const list = async (u: TestUser) =>
    (await t.http.get('/api/budgets').set(u.auth).expect(200)).body as { id: string }[];
  async function newKey(u: TestUser) {
    const res = await t.http.post('/api/keys').set(u.auth).send({ name: 'agent' }).expect(201);
    return { id: res.body.id as string, auth: { Authorization: `Bearer ${res.body.key}` } };
  }

  it('sets, lists, replaces and deletes my budget; the default zone is APP_TIMEZONE', async () => {
    const u = await newUser(t, { credits: 1000 });
    const res = await put(u, {
      scope: 'user',
      thresholds: [80],
      windows: [
        { window: 'day', limit: 500 },
        { window: 'hours', hours: 5, limit: 100 },
      ],
    }).expect(200);
    expect(res.body).toMatchObject({
      scope: 'user',
      userId: u.user.id,
      timezone: 'Asia/Shanghai',
      thresholds: [80],
      windows: [
        { window: 'hours', hours: 5, limit: 100 },
        { window: 'day', hours: null, limit: 500 },
      ],
    });
    const again = await put(u, { scope: 'user', windows: [{ window: 'week', limit: 900 }] });
    expect(again.body).toMatchObject({
      id: res.body.id,
      windows: [{ window: 'week', limit: 900 }],
    });
    expect((await list(u)).map((b) => b.id)).toEqual([res.body.id]);
    const gone = await t.http.delete(`/api/budgets/${res.body.id}`).set(u.auth).expect(200);
    expect(gone.body).toEqual({ id: res.body.id, deleted: true });
    expect(await list(u)).toEqual([]);
  });

  it('refuses bad input and other people’s keys and teams with a code, changing nothing', async () => {
    const u = await newUser(t);
    const other = await newUser(t);
    const theirKey = await newKey(other);
    const theirTeam = await newTeam(t, other);
    const cases: [object, number, string][] = [
      [{ scope: 'user', windows: [{ window: 'day', limit: -1 }] }, 400, 'VALIDATION_FAILED'],
      [{ scope: 'user', windows: [{ window: 'day', limit: 1.5 }] }, 400, 'VALIDATION_FAILED'],
      [
        { scope: 'user', timezone: 'Mars/Olympus', windows: [{ window: 'day', limit: 1 }] },
        400,
        'VALIDATION_FAILED',
      ],
      [
        {
          scope: 'user',
          windows: [
            { window: 'day', limit: 1 },
            { window: 'day', limit: 2 },
          ],
        },
        400,
        'VALIDATION_FAILED',
      ],
      [{ scope: 'user', windows: [{ window: 'hours', limit: 1 }] }, 400, 'VALIDATION_FAILED'],
      [{ scope: 'user', windows: [] }, 400, 'VALIDATION_FAILED'],
      [
        { scope: 'user', userId: other.user.id, windows: [{ window: 'day', limit: 1 }] },
        403,
        'FORBIDDEN',
      ],
      [
        { scope: 'key', keyId: theirKey.id, windows: [{ window: 'day', limit: 1 }] },
        403,
        'FORBIDDEN',
      ],
      [
        { scope: 'team', teamId: theirTeam.id, windows: [{ window: 'day', limit: 1 }] },
        403,
        'FORBIDDEN',
      ],
      [
        {
          scope: 'member',
          teamId: theirTeam.id,
          userId: u.user.id,
          windows: [{ window: 'day', limit: 1 }],
        },
        403,
        'FORBIDDEN',
      ],
    ];
    for (const [body, status, code] of cases) {
      const res = await put(u, body);
      expect([res.status, res.body.code]).toEqual([status, code]);
    }
    expect(await list(u)).toEqual([]);
    expect(await list(other)).toEqual([]);
  });

  it('lets team owners and admins cap the team and each member, not members', async () => {
    const owner = await newUser(t);
    const admin = await newUser(t);
    const member = await newUser(t);
    const team = await newTeam(t, owner, {
      members: [
        [admin, 'ADMIN'],
        [member, 'MEMBER'],
      ],
    });
    const day = [{ window: 'day', limit: 100 }];
    await put(owner, { scope: 'team', teamId: team.id, windows: day }).expect(200);
    await put(admin, {
      scope: 'member',
      teamId: team.id,
      userId: member.user.id,
      windows: day,
    }).expect(200);
    const refused = await put(member, { scope: 'team', teamId: team.id, windows: day });
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    // The member sees the team's window and their own cap among their limits.
    const limits = await t.http.get('/api/credits/limits').set(member.auth).expect(200);
    expect(limits.body.data.map((l: { scope: string }) => l.scope)).toEqual([
      'member',
      'team',
      'plan',
    ]);
  });

  it('GET /api/credits/limits: every window with used, held, remaining, resetsAt and pace', async () => {
    const u = await newUser(t, { credits: 1000 });
    await put(u, {
      scope: 'user',
      windows: [
        { window: 'day', limit: 500 },
        { window: 'total', limit: 900 },
      ],
    }).expect(200);
    await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    const res = await t.http.get('/api/credits/limits').set(u.auth).expect(200);
    const [day, total, plan] = res.body.data;
    expect(day).toMatchObject({
      scope: 'user',
      scopeId: u.user.id,
      window: 'day',
      limit: 500,
      held: 0,
    });
    expect(day.used).toBeGreaterThan(0);
    expect(day.remaining).toBe(500 - day.used);
    expect(Date.parse(day.resetsAt)).toBeGreaterThan(Date.now());
    expect(day.pace).toBeGreaterThanOrEqual(day.used);
    expect(total).toMatchObject({ window: 'total', used: day.used, resetsAt: null, pace: null });
    expect(plan).toMatchObject({ scope: 'plan', window: 'day', used: day.used });
  });

  it("GET /v1/key answers OpenRouter's key shape with our windows, and charges nothing", async () => {
    const u = await newUser(t, { credits: 1000 });
    const key = await newKey(u);
    await put(u, {
      scope: 'key',
      keyId: key.id,
      windows: [
        { window: 'month', limit: 300 },
        { window: 'day', limit: 200 },
      ],
    }).expect(200);
    await t.http.post('/api/ai/generate').set(key.auth).send(ask).expect(200);
    const before = (await t.http.get('/api/credits').set(u.auth)).body.balance;
    const res = await t.http.get('/v1/key').set(key.auth).expect(200);
    const used = res.body.data.usage;
    expect(used).toBeGreaterThan(0);
    expect(res.body.data).toMatchObject({
      label: expect.stringContaining('agent'),
      usage_daily: used,
      usage_weekly: used,
      usage_monthly: used,
      limit: 200,
      limit_remaining: 200 - used,
      limit_reset: 'daily',
      is_free_tier: false,
    });
    expect(res.body.data.windows.map((w: { window: string }) => w.window)).toEqual([
      'day',
      'month',
    ]);
    expect((await t.http.get('/api/credits').set(u.auth)).body.balance).toBe(before);
    // A session is not a key.
    const session = await t.http.get('/v1/key').set(u.auth);
    expect([session.status, session.body.error.code]).toEqual([403, 'forbidden']);
  });
});
