import { Clock } from '../../../src/common/clock/clock';
import { CreditsService } from '../../../src/credits/credits.service';
import { localDate } from '../../../src/credits/usage-stats.service';
import { newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

/** A clock the test moves by hand ("today" for the default range). */
class FixedClock extends Clock {
  at = new Date();
  now(): Date {
    return this.at;
  }
}

const TZ = 'America/New_York';
const fail = (code: string) => ({ error: expect.any(String), code });
const failB = (code: string) => ({ success: false, error: expect.any(String), code });
const zero = {
  requests: 0,
  promptTokens: 0,
  completionTokens: 0,
  cachedTokens: 0,
  cacheSavings: 0,
  credits: 0,
};
/** Spec pricing, no cache reads reported: no cached tokens, nothing saved. */
const noCache = { cachedTokens: 0, cacheSavings: 0 };
const plusDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

interface UsageRow {
  day?: string;
  modelId?: string | null;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  credits: number;
}

describe('Usage statistics', () => {
  let t: TestApp;
  let p: Providers;
  const clock = new FixedClock();

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, APP_TIMEZONE: TZ }, { clock });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => {
    p.reset();
    clock.at = new Date();
  });

  /** One metered reply; the local server reports `prompt` + `completion` tokens. */
  async function reply(u: TestUser, modelId: string, prompt: number, completion: number) {
    p.openai.reply = { usage: { prompt_tokens: prompt, completion_tokens: completion } };
    const res = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId, messages: [{ role: 'user', content: 'Hello' }] })
      .expect(200);
    return res.body.cost as number;
  }
  /** Moves the user's newest CONSUMPTION entry to `at`. */
  const moveLast = (u: TestUser, at: string) =>
    t.db.query(
      `UPDATE credit_transactions SET "createdAt" = $2 WHERE id = (
         SELECT id FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'
         ORDER BY "createdAt" DESC LIMIT 1)`,
      [u.user.id, at],
    );
  const consumed = async (u: TestUser) =>
    Number(
      (
        await t.db.query(
          `SELECT COALESCE(-SUM(amount), 0) AS n FROM credit_transactions
           WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
          [u.user.id],
        )
      )[0].n,
    );

  it('reads the last 7 days by day, zeros included, adding up to the ledger', async () => {
    const u = await newUser(t, { credits: 1000 });
    const today = localDate(clock.now(), TZ);
    const c1 = await reply(u, 'gpt-4o', 1000, 500);
    const c2 = await reply(u, 'gpt-4o-mini', 300, 200);
    const c3 = await reply(u, 'gpt-4o', 2000, 1000);
    // The third happened at noon UTC two local days ago.
    await moveLast(u, `${plusDays(today, -2)}T16:00:00Z`);
    const from = plusDays(today, -6);
    const res = await t.http
      .get('/api/credits/usage')
      .query({ from, to: today, groupBy: 'day' })
      .set(u.auth)
      .expect(200);
    expect(res.body).toEqual({
      from,
      to: today,
      groupBy: 'day',
      timezone: TZ,
      data: expect.any(Array),
      totals: {
        requests: 3,
        promptTokens: 3300,
        completionTokens: 1700,
        ...noCache,
        credits: c1 + c2 + c3,
      },
    });
    const days: UsageRow[] = res.body.data;
    expect(days.map((d) => d.day)).toEqual([0, 1, 2, 3, 4, 5, 6].map((n) => plusDays(from, n)));
    expect(days[6]).toEqual({
      day: today,
      requests: 2,
      promptTokens: 1300,
      completionTokens: 700,
      ...noCache,
      credits: c1 + c2,
    });
    expect(days[4]).toEqual({
      day: plusDays(today, -2),
      requests: 1,
      promptTokens: 2000,
      completionTokens: 1000,
      ...noCache,
      credits: c3,
    });
    for (const i of [0, 1, 2, 3, 5]) expect(days[i]).toEqual({ day: days[i].day, ...zero });
    expect(res.body.totals.credits).toBe(await consumed(u));

    const byModel = await t.http
      .get('/api/credits/usage')
      .query({ from, to: today, groupBy: 'model' })
      .set(u.auth)
      .expect(200);
    expect(byModel.body.data).toEqual([
      {
        modelId: 'gpt-4o',
        requests: 2,
        promptTokens: 3000,
        completionTokens: 1500,
        ...noCache,
        credits: c1 + c3,
      },
      {
        modelId: 'gpt-4o-mini',
        requests: 1,
        promptTokens: 300,
        completionTokens: 200,
        ...noCache,
        credits: c2,
      },
    ]);
    expect(byModel.body.totals).toEqual(res.body.totals);
  });

  it('counts days in APP_TIMEZONE, across a daylight-saving change', async () => {
    const u = await newUser(t, { credits: 1000 });
    // 23:30 on 7 March in New York (EST, UTC-5), then 00:30 on 8 March; clocks spring forward
    // at 02:00 on 8 March, so 23:30 on 8 March is 03:30 UTC on the 9th (EDT, UTC-4).
    const a = await reply(u, 'gpt-4o', 100, 100);
    await moveLast(u, '2026-03-08T04:30:00Z');
    const b = await reply(u, 'gpt-4o', 100, 100);
    await moveLast(u, '2026-03-08T05:30:00Z');
    const c = await reply(u, 'gpt-4o', 100, 100);
    await moveLast(u, '2026-03-09T03:30:00Z');
    const d = await reply(u, 'gpt-4o', 100, 100);
    await moveLast(u, '2026-03-09T04:30:00Z');
    const res = await t.http
      .get('/api/credits/usage?from=2026-03-07&to=2026-03-09')
      .set(u.auth)
      .expect(200);
    expect(res.body.data.map((r: UsageRow) => [r.day, r.requests, r.credits])).toEqual([
      ['2026-03-07', 1, a],
      ['2026-03-08', 2, b + c],
      ['2026-03-09', 1, d],
    ]);
  });

  it('counts only CONSUMPTION: grants and admin adjustments are not usage', async () => {
    const u = await newUser(t, { credits: 500 });
    await t.app.get(CreditsService).consume(u.user.id, 7, 'spent elsewhere');
    const res = await t.http
      .get('/api/credits/usage')
      .query({ groupBy: 'model' })
      .set(u.auth)
      .expect(200);
    expect(res.body.data).toEqual([
      { modelId: null, requests: 1, promptTokens: 0, completionTokens: 0, ...noCache, credits: 7 },
    ]);
    expect(res.body.totals.credits).toBe(await consumed(u));
  });

  it('defaults to the last 30 local days up to today, by day', async () => {
    const u = await newUser(t);
    clock.at = new Date('2026-01-10T03:00:00Z'); // 22:00 on 9 January in New York
    const res = await t.http.get('/api/credits/usage').set(u.auth).expect(200);
    expect([res.body.from, res.body.to, res.body.groupBy]).toEqual([
      '2025-12-11',
      '2026-01-09',
      'day',
    ]);
    expect(res.body.data).toHaveLength(30);
    expect(res.body.totals).toEqual(zero);
  });

  it('accepts 366 days and refuses bad ranges with 400', async () => {
    const u = await newUser(t);
    const ok = await t.http
      .get('/api/credits/usage?from=2024-01-01&to=2024-12-31')
      .set(u.auth)
      .expect(200);
    expect(ok.body.data).toHaveLength(366);
    for (const query of [
      'from=2024-01-01&to=2025-01-01',
      'from=2026-01-02&to=2026-01-01',
      'from=2026-02-30&to=2026-03-01',
      'from=2026-1-1',
      'to=yesterday',
      'groupBy=week',
    ]) {
      const res = await t.http.get(`/api/credits/usage?${query}`).set(u.auth);
      expect([query, res.status, res.body]).toEqual([query, 400, fail('VALIDATION_FAILED')]);
    }
  });

  it("gives admins any user's usage; others get 403, an unknown user 404", async () => {
    const [u, admin, other] = await Promise.all([
      newUser(t, { credits: 1000 }),
      newUser(t, { role: 'ADMIN' }),
      newUser(t),
    ]);
    await reply(u, 'gpt-4o-mini', 10, 20);
    const query = { groupBy: 'model' };
    const own = await t.http.get('/api/credits/usage').query(query).set(u.auth).expect(200);
    const res = await t.http
      .get(`/api/users/${u.user.id}/usage`)
      .query(query)
      .set(admin.auth)
      .expect(200);
    expect(res.body).toEqual({ success: true, data: own.body });
    const denied = await t.http.get(`/api/users/${u.user.id}/usage`).set(other.auth);
    expect([denied.status, denied.body]).toEqual([403, failB('FORBIDDEN')]);
    const missing = await t.http
      .get('/api/users/00000000-0000-4000-8000-000000000000/usage')
      .set(admin.auth);
    expect([missing.status, missing.body]).toEqual([404, failB('USER_NOT_FOUND')]);
    const bad = await t.http.get(`/api/users/${u.user.id}/usage?from=x`).set(admin.auth);
    expect([bad.status, bad.body]).toEqual([400, failB('VALIDATION_FAILED')]);
  });

  it('answers 401 without a session', async () => {
    const res = await t.http.get('/api/credits/usage');
    expect([res.status, res.body]).toEqual([401, fail('UNAUTHORIZED')]);
  });
});
