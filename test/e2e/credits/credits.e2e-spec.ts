import { Clock } from '../../../src/common/clock/clock';
import { CreditHoldsService } from '../../../src/credits/credit-holds.service';
import { CreditsService } from '../../../src/credits/credits.service';
import { startProviders, type Providers } from '../../support/providers';
import { recountDays } from '../../support/daily-consumption';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

/** A clock the test moves by hand. */
class FixedClock extends Clock {
  at = new Date();
  now(): Date {
    return this.at;
  }
}

describe('credits: holds, daily limits, ledger', () => {
  let t: TestApp;
  let p: Providers;
  const clock = new FixedClock();
  const ask = { modelId: 'gpt-4o', messages: [{ role: 'user', content: 'Tell me' }] };
  const held = async () => Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count);
  /** credits + open holds = Σ ledger, and credits ≥ 0. */
  const assertInvariant = async (u: TestUser) => {
    const [row] = await t.db.query(
      `SELECT u.credits,
         (SELECT COALESCE(SUM(amount), 0)::int FROM credit_holds WHERE "userId" = u.id) AS held,
         (SELECT COALESCE(SUM(amount), 0)::int FROM credit_transactions WHERE "userId" = u.id) AS ledger
       FROM users u WHERE u.id = $1`,
      [u.user.id],
    );
    expect(row.credits + row.held).toBe(row.ledger);
    expect(row.credits).toBeGreaterThanOrEqual(0);
  };

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, APP_TIMEZONE: 'America/New_York' }, { clock });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => {
    p.reset();
    clock.at = new Date();
  });

  it('keeps credits + open holds equal to the ledger while a request is in flight', async () => {
    const u = await newUser(t);
    const hold = await t.app.get(CreditHoldsService).hold(u.user.id, 40, 'req-in-flight');
    expect((await ledgerOf(t, u.user.id)).credits).toBe(60);
    await assertInvariant(u);
    const summary = (await t.http.get('/api/credits').set(u.auth).expect(200)).body;
    expect(summary).toEqual(
      expect.objectContaining({ balance: 60, heldCredits: 40, plan: 'FREE', dailyLimit: 100 }),
    );
    await t.app.get(CreditHoldsService).release(hold);
    await t.app.get(CreditHoldsService).release(hold); // twice is harmless
    expect((await ledgerOf(t, u.user.id)).credits).toBe(100);
    await assertInvariant(u);
  });

  it('returns expired holds in the sweep, losing no credits', async () => {
    const u = await newUser(t);
    const holds = t.app.get(CreditHoldsService);
    await holds.hold(u.user.id, 25, 'req-crashed');
    await holds.hold(u.user.id, 5, 'req-alive');
    await t.db.query(
      `UPDATE credit_holds SET "expiresAt" = now() - interval '1 second' WHERE "requestId" = 'req-crashed'`,
    );
    expect(await holds.sweepExpiredHolds()).toBe(1);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(95);
    expect(await held()).toBe(1);
    await assertInvariant(u);
    expect(await holds.sweepExpiredHolds()).toBe(0);
  });

  it.each([
    ['FREE', 100],
    ['BASIC', 1000],
    ['PRO', 10000],
  ])(
    '%s: 429 DAILY_LIMIT_REACHED at %i credits a day, with no upstream call',
    async (plan, limit) => {
      const u = await newUser(t, { credits: limit + 50 });
      await t.db.query('UPDATE users SET plan = $2 WHERE id = $1', [u.user.id, plan]);
      // Used today: limit - 1. This request's estimate is 1 credit: exactly at the limit, allowed.
      await t.app.get(CreditsService).consume(u.user.id, limit - 1, 'earlier today');
      await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
      // Now used = limit: any further estimate exceeds it.
      const res = await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(429);
      expect(res.body).toEqual(
        expect.objectContaining({
          code: 'DAILY_LIMIT_REACHED',
          dailyLimit: limit,
          usedToday: limit,
        }),
      );
      expect(p.openai.requests).toHaveLength(1);
    },
  );

  it('starts "today" at local midnight in APP_TIMEZONE (America/New_York)', async () => {
    const u = await newUser(t, { credits: 500 });
    await t.app.get(CreditsService).consume(u.user.id, 100, 'late evening in New York');
    // 23:00 New York time on 20 November = 04:00 UTC on the 21st.
    await t.db.query(
      `UPDATE credit_transactions SET "createdAt" = '2026-11-21T04:00:00Z' WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.user.id],
    );
    // The day counters follow the entries they are written with, not a later UPDATE.
    await recountDays(t, u.user.id, 'America/New_York');
    clock.at = new Date('2026-11-21T04:30:00Z'); // 23:30 in New York: same day
    const before = (await t.http.get('/api/credits').set(u.auth).expect(200)).body;
    expect(before).toEqual(
      expect.objectContaining({ usedToday: 100, resetsAt: '2026-11-21T05:00:00.000Z' }),
    );
    await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(429);

    clock.at = new Date('2026-11-21T05:30:00Z'); // 00:30 in New York: a new day
    const after = (await t.http.get('/api/credits').set(u.auth).expect(200)).body;
    expect(after).toEqual(
      expect.objectContaining({ usedToday: 0, resetsAt: '2026-11-22T05:00:00.000Z' }),
    );
    await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
  });

  it('lists the ledger newest first with cursor pagination', async () => {
    const u = await newUser(t);
    const credits = t.app.get(CreditsService);
    for (let i = 1; i <= 4; i++) await credits.consume(u.user.id, i, `entry ${i}`);
    // Distinct times, so the order does not rest on ids: entry i at minute i, the bonus before.
    await t.db.query(
      `UPDATE credit_transactions SET "createdAt" = '2026-01-01'::timestamptz + (-amount) * interval '1 minute'
       WHERE "userId" = $1`,
      [u.user.id],
    );
    const first = (await t.http.get('/api/credits/transactions?limit=3').set(u.auth).expect(200))
      .body;
    expect(first.data.map((e: { amount: number }) => e.amount)).toEqual([-4, -3, -2]);
    expect(first.data[0]).toEqual({
      id: expect.any(String),
      amount: -4,
      type: 'CONSUMPTION',
      description: 'entry 4',
      keyId: null,
      // Written by CreditsService.consume, which records no model call.
      modelId: null,
      promptTokens: null,
      completionTokens: null,
      cachedTokens: null,
      cacheWriteTokens: null,
      reasoningTokens: null,
      cacheSavings: null,
      generationId: null,
      createdAt: expect.any(String),
    });
    const next = (
      await t.http
        .get(`/api/credits/transactions?limit=3&cursor=${first.nextCursor}`)
        .set(u.auth)
        .expect(200)
    ).body;
    expect(next.data.map((e: { type: string }) => e.type)).toEqual(['CONSUMPTION', 'BONUS']);
    expect(next.nextCursor).toBeNull();
    const other = await newUser(t);
    const theirs = (await t.http.get('/api/credits/transactions').set(other.auth).expect(200)).body;
    expect(theirs.data).toHaveLength(1);
  });

  it('tells an unverified user refused for credits that verifying grants the sign-up credits (en, zh)', async () => {
    const u = await newUser(t, { verified: false });
    expect(u.user.credits).toBe(0);
    const en = await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(402);
    expect(en.body).toEqual({
      error: expect.any(String),
      code: 'INSUFFICIENT_CREDITS',
      required: 11,
      balance: 0,
      hint: expect.stringContaining(
        'Verify your email address to receive your 100 sign-up credits',
      ),
    });
    const zh = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .set('Accept-Language', 'zh-CN')
      .send(ask)
      .expect(402);
    expect(zh.body.code).toBe('INSUFFICIENT_CREDITS');
    expect(zh.body.hint).toContain('验证您的邮箱地址即可获得 100 注册赠送积分');
    // A verified user without credits gets no hint: verifying would grant nothing more.
    const verified = await newUser(t, { credits: 0 });
    const plain = await t.http.post('/api/ai/generate').set(verified.auth).send(ask).expect(402);
    expect(plain.body.hint).toBeUndefined();
    expect(p.openai.requests).toHaveLength(0);
    await assertInvariant(u);
  });

  it('estimates a message: ceil(code points / 4) tokens and its cost', async () => {
    const u = await newUser(t);
    const res = await t.http
      .post('/api/credits/estimate')
      .set(u.auth)
      .send({ modelId: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(401) }] })
      .expect(200);
    expect(res.body).toEqual({ estimatedTokens: 101, cost: 2, maxCost: 2 });
    await t.http.post('/api/credits/estimate').send(ask).expect(401);
    await t.http
      .post('/api/credits/estimate')
      .set(u.auth)
      .send({ modelId: 'x', messages: [] })
      .expect(400);
  });
});

// Natural batching on (the default) and off (each statement alone): one app each, one after the other.
describe.each(['true', 'false'])(
  'credits under parallel requests (BATCH_STATEMENTS=%s)',
  (batch) => {
    let t: TestApp;
    let p: Providers;
    const ask = { modelId: 'gpt-4o', messages: [{ role: 'user', content: 'Tell me' }] };

    beforeAll(async () => {
      p = await startProviders();
      t = await createTestApp({ ...p.env, BATCH_STATEMENTS: batch });
    });
    afterAll(async () => {
      await t.close();
      await p.stop();
    });

    it('admits exactly 3 of 20 parallel requests when the balance covers 3 worst-case holds', async () => {
      // Warm the app up (a fresh app's first requests are slow: replies could settle before
      // the last of the 20 is admitted), then count only the 20.
      const warm = await newUser(t);
      await t.http.post('/api/ai/generate').set(warm.auth).send(ask).expect(200);
      p.openai.requests.length = 0;
      // Hold for gpt-4o: ceil((2 estimated + 1000 max) * 0.00001 * 1000) = 11 credits.
      const u = await newUser(t, { credits: 33 });
      // Slow replies (3 s): no admitted request settles, returning credits, before all 20 are
      // decided, even on a loaded machine.
      p.openai.reply = { chunks: 2, chunkDelayMs: 1500 };
      const results = await Promise.all(
        Array.from({ length: 20 }, () => t.http.post('/api/ai/stream').set(u.auth).send(ask)),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(3);
      expect(statuses.filter((s) => s === 402)).toHaveLength(17);
      for (const r of results.filter((x) => x.status === 402)) {
        expect(r.body.code).toBe('INSUFFICIENT_CREDITS');
      }
      expect(p.openai.requests).toHaveLength(3);
      const [{ count }] = await t.db.query('SELECT count(*)::int AS count FROM credit_holds');
      expect(count).toBe(0);
      // Each admitted reply cost ceil(30 * 0.00001 * 1000) = 1 credit.
      expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 30, ledgerSum: 30, entries: 5 });
    });

    it('settles once per request even when settlement runs twice', async () => {
      const u = await newUser(t);
      const holds = t.app.get(CreditHoldsService);
      const hold = await holds.hold(u.user.id, 20, 'req-twice');
      const charge = { cost: 7, description: 'x' };
      const [a, b] = await Promise.all([holds.settle(hold, charge), holds.settle(hold, charge)]);
      expect(a.charged).toBe(7);
      expect(b.charged).toBe(7);
      expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 93, ledgerSum: 93, entries: 2 });
    });
  },
);
