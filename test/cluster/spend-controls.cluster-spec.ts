import { Client } from 'pg';
import { OpenAiTestServer } from '../servers/openai-server';
import { verifyInMailDir } from '../support/accounts';
import type { SpawnedApp } from '../support/spawn-app';
import { startTwoInstances, stopInstance } from './instances';

/**
 * Spend controls under `npm run test:cluster`: 40 parallel calls through one team key, spread
 * over two instances, against a team pool, a member cap, a key cap and the team's month window.
 * In each case a different one binds first: exactly what it covers is admitted, every other call
 * is refused with that limit's error in the protocol's shape, no window passes its limit, the
 * ledger equals the balances and each budget counter equals the ledger's sum of its window. A
 * member removed through one instance is refused by the other at its next call.
 */
const RUN = `${process.pid}-${Date.now()}`;
const PASSWORD = 'cluster password 1';
/** Hold of each call on gpt-4o: ceil((2 estimated + 1000 max tokens) × 0.00001 × 1000) = 11. */
const HOLD = 11;
/** Calls the binding limit covers; every other limit covers twice as many. */
const ADMITTED = 3;
const BINDS = ADMITTED * HOLD;
const LOOSE = ADMITTED * 2 * HOLD;
const CALLS = 40;
const OPENAI = {
  path: '/v1/chat/completions',
  body: {
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Tell me' }],
    max_tokens: 1000,
    stream: true,
  },
};
const ANTHROPIC = { path: '/v1/messages', body: OPENAI.body };

type Binding = 'pool' | 'member' | 'key' | 'month';
type Answer = { status: number; body: Record<string, any> };

/** Each case: the protocol it calls through, and the refusal every call past it gets. */
const CASES: [Binding, typeof OPENAI, number, (b: Record<string, any>) => unknown][] = [
  ['pool', OPENAI, 402, (b) => [b.error?.type, b.error?.code]],
  ['member', ANTHROPIC, 429, (b) => [b.error?.type, b.error?.details?.error_code]],
  ['key', OPENAI, 429, (b) => [b.error?.type, b.error?.code]],
  ['month', ANTHROPIC, 429, (b) => [b.error?.type, b.error?.details?.error_code]],
];
const REFUSAL: Record<Binding, unknown> = {
  pool: ['insufficient_quota', 'insufficient_credits'],
  member: ['rate_limit_error', 'budget_exceeded'],
  key: ['rate_limit_error', 'budget_exceeded'],
  month: ['rate_limit_error', 'budget_exceeded'],
};
/** The window a budget refusal names (`scope`, `window`); none for the pool. */
const WINDOW: Record<Binding, [string, string] | null> = {
  pool: null,
  member: ['member', 'day'],
  key: ['key', 'day'],
  month: ['team', 'month'],
};

describe('spend controls across two instances', () => {
  const openai = new OpenAiTestServer();
  const apps: SpawnedApp[] = [];
  const bases: string[] = [];
  let db: Client;

  const http = async (i: number, method: string, path: string, auth: string, body?: object) => {
    const res = await fetch(`${bases[i % 2]}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${auth}` },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const json = res.headers.get('content-type')?.includes('json');
    return { status: res.status, body: json ? JSON.parse(text) : { text } } as Answer;
  };

  async function signUp(name: string): Promise<{ id: string; token: string; email: string }> {
    const email = `spend-${name}-${RUN}@example.com`;
    const res = await fetch(`${bases[0]}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(res.status).toBe(201);
    const { user, accessToken } = (await res.json()) as {
      user: { id: string };
      accessToken: string;
    };
    // The sign-up credits wait for the address to be verified, through the mailed link.
    await verifyInMailDir(bases[0], apps[0].mailDir, email);
    return { id: user.id, token: accessToken, email };
  }

  /** A team of a new owner, its pool funded with `pool` credits. */
  async function teamOf(name: string, pool: number) {
    const owner = await signUp(name);
    const team = await http(0, 'POST', '/api/teams', owner.token, { name: `spend ${name}` });
    expect(team.status).toBe(201);
    const teamId = (team.body.data?.id ?? team.body.id) as string;
    const funded = await http(1, 'POST', `/api/teams/${teamId}/credits/transfers`, owner.token, {
      amount: pool,
    });
    expect(funded.status).toBe(201);
    return { owner, teamId };
  }

  /** The team's pool and its owner's balance each equal their ledger; nothing is held. */
  async function expectLedgerMatches(teamId: string, userId: string) {
    const { rows } = await db.query(
      `SELECT t.credits AS pool,
         (SELECT COUNT(*)::int FROM credit_holds WHERE "teamId" = t.id OR "userId" = $2) AS holds,
         (SELECT COALESCE(SUM(amount), 0)::int FROM credit_transactions WHERE "teamId" = t.id) AS "poolLedger",
         (SELECT credits FROM users WHERE id = $2) AS own,
         (SELECT COALESCE(SUM(amount), 0)::int FROM credit_transactions WHERE "userId" = $2) AS "ownLedger"
       FROM teams t WHERE t.id = $1`,
      [teamId, userId],
    );
    const r = rows[0];
    expect(r.holds).toBe(0);
    expect(r.pool).toBe(r.poolLedger);
    expect(r.own).toBe(r.ownLedger);
    return r as { pool: number; own: number };
  }

  /** Every counter of the budgets on `teamId` and `keyId`: its window's limit and ledger sum. */
  async function countersOf(teamId: string, keyId: string) {
    const { rows } = await db.query(
      `SELECT b.scope, w.kind, w."limit", c.used,
         budget_ledger_sum(b.scope, b."userId", b."teamId", b."keyId", c.start,
           budget_window_end(w.kind, b.timezone, c.start, w.hours))::int AS ledger
       FROM budget_counters c JOIN budget_windows w ON w.id = c."windowId"
       JOIN budgets b ON b.id = w."budgetId"
       WHERE b."teamId" = $1 OR b."keyId" = $2`,
      [teamId, keyId],
    );
    return rows as { scope: string; kind: string; limit: number; used: number; ledger: number }[];
  }

  beforeAll(async () => {
    await openai.start();
    // Slow replies: no admitted call settles, returning its hold, before all 40 arrive.
    openai.reply = { chunks: 2, chunkDelayMs: 1500 };
    await startTwoInstances(
      { apps, bases },
      {
        DATABASE_URL: process.env.CLUSTER_PG_URL!,
        DB_POOL_SIZE: '10',
        AUTH_SECRET: 'cluster-test-secret-0123456789-0123456789',
        SIGNUP_CREDITS: '1000',
        OPENAI_API_KEY: 'sk-test-openai',
        OPENAI_BASE_URL: openai.url,
        AI_RETRY_BASE_DELAY_MS: '5',
        API_KEY_RPM: '1000',
      },
      (i) => ({ BATCH_STATEMENTS: i === 0 ? 'true' : 'false' }),
    );
    db = new Client({ connectionString: process.env.CLUSTER_PG_URL });
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    await Promise.all(apps.map(stopInstance));
    await openai.stop().catch(() => undefined);
  }, 60_000);

  it.each(CASES)(
    'the %s binds first: exactly what it covers is admitted, the rest refused in the protocol’s shape',
    async (binding, protocol, status, refusalOf) => {
      const { owner, teamId } = await teamOf(binding, binding === 'pool' ? BINDS : LOOSE * 2);
      const key = await http(1, 'POST', '/api/keys', owner.token, { name: 'team', teamId });
      expect(key.status).toBe(201);
      const budgets: object[] = [
        {
          scope: 'member',
          teamId,
          userId: owner.id,
          windows: [{ window: 'day', limit: binding === 'member' ? BINDS : LOOSE }],
        },
        {
          scope: 'key',
          keyId: key.body.id,
          windows: [{ window: 'day', limit: binding === 'key' ? BINDS : LOOSE }],
        },
        {
          scope: 'team',
          teamId,
          windows: [{ window: 'month', limit: binding === 'month' ? BINDS : LOOSE }],
        },
      ];
      for (const [i, budget] of budgets.entries())
        expect((await http(i, 'PUT', '/api/budgets', owner.token, budget)).status).toBe(200);
      openai.requests.length = 0;

      const answers = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          http(i, 'POST', protocol.path, key.body.key, protocol.body),
        ),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(ADMITTED);
      const refused = answers.filter((a) => a.status !== 200);
      expect(refused.map((a) => a.status)).toEqual(Array(CALLS - ADMITTED).fill(status));
      for (const a of refused) expect(refusalOf(a.body)).toEqual(REFUSAL[binding]);
      const named = WINDOW[binding];
      if (named) {
        const details = protocol === OPENAI ? refused[0].body.error : refused[0].body.error.details;
        expect([details.scope, details.window]).toEqual(named);
      }
      expect(openai.requests).toHaveLength(ADMITTED);

      const after = await expectLedgerMatches(teamId, owner.id);
      // Each admitted reply costs ceil(30 tokens × 0.00001 × 1000) = 1 credit, from the pool.
      const pool = binding === 'pool' ? BINDS : LOOSE * 2;
      expect(after.pool).toBe(pool - ADMITTED);
      const counters = await countersOf(teamId, key.body.id);
      expect(counters.map((c) => c.scope).sort()).toEqual(['key', 'member', 'team']);
      for (const c of counters) {
        expect(c.used).toBeLessThanOrEqual(c.limit);
        expect(c.used).toBe(c.ledger);
        expect(c.used).toBe(ADMITTED);
      }
    },
  );

  it('refuses a removed member’s next call on the other instance, changing nothing', async () => {
    openai.reply = { text: 'ok' };
    const { owner, teamId } = await teamOf('removal', LOOSE);
    const member = await signUp('removed-member');
    const invited = await http(0, 'POST', `/api/teams/${teamId}/invitations`, owner.token, {
      email: member.email,
    });
    expect(invited.status).toBe(201);
    const token = (invited.body.data?.token ?? invited.body.token) as string;
    expect((await http(1, 'POST', '/api/invitations/accept', member.token, { token })).status).toBe(
      200,
    );
    const ask = { modelId: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], teamId };
    expect((await http(1, 'POST', '/api/ai/generate', member.token, ask)).status).toBe(200);

    const removed = await http(
      0,
      'DELETE',
      `/api/teams/${teamId}/members/${member.id}`,
      owner.token,
    );
    expect(removed.status).toBe(200);
    const before = await expectLedgerMatches(teamId, owner.id);
    openai.requests.length = 0;
    const refused = await http(1, 'POST', '/api/ai/generate', member.token, ask);
    expect([refused.status, refused.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(openai.requests).toHaveLength(0);
    expect(await expectLedgerMatches(teamId, owner.id)).toEqual(before);
  });
});
