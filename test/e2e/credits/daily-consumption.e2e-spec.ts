import { DailyConsumption1796830500000 } from '../../../migrations/1796830500000-DailyConsumption';
import { Clock } from '../../../src/common/clock/clock';
import { CreditsService } from '../../../src/credits/credits.service';
import { counterMismatches } from '../../support/daily-consumption';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { portOf } from '../../support/uploads';
import { waitFor } from '../../support/wait';
import { streamThenLeave } from '../../support/walk-away';

/** A clock the test moves by hand; the real time when unset. */
class MovableClock extends Clock {
  at?: Date;
  now(): Date {
    return this.at ?? new Date();
  }
}

const TZ = 'America/New_York';
const ask = (modelId: string) => ({ modelId, messages: [{ role: 'user', content: 'Tell me' }] });
const none = { users: [], keys: [] };

/** The day counters of consumption: equal to the ledger, read by the daily limits. */
describe('Daily consumption counters', () => {
  let t: TestApp;
  let p: Providers;
  const clock = new MovableClock();

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
    clock.at = undefined;
  });

  async function newKey(u: TestUser, dailyCreditLimit?: number) {
    const res = await t.http
      .post('/api/keys')
      .set(u.auth)
      .send({ name: 'script', dailyCreditLimit })
      .expect(201);
    return { id: res.body.id as string, auth: { Authorization: `Bearer ${res.body.key}` } };
  }
  const openHolds = async () =>
    Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count);
  const usedToday = async (u: TestUser) =>
    (await t.http.get('/api/credits').set(u.auth).expect(200)).body.usedToday as number;

  it('equal the ledger per user, key and day after 30 parallel requests, some left mid-stream', async () => {
    const users = await Promise.all([0, 1, 2].map(() => newUser(t, { credits: 5000 })));
    await t.db.query(`UPDATE users SET plan = 'PRO' WHERE id = ANY($1)`, [
      users.map((u) => u.user.id),
    ]);
    const keys = await Promise.all(users.map((u) => newKey(u, 2000)));
    // OpenAI reports more tokens than the hold covers: those settle in a transaction. Anthropic's
    // reply is slow enough to walk away from after its first words.
    p.openai.reply = { usage: { prompt_tokens: 5000, completion_tokens: 2000 } };
    p.anthropic.reply = {
      text: 'one two three four five six',
      chunks: 6,
      chunkDelayMs: 100,
      usage: { input_tokens: 1000, output_tokens: 400 },
    };
    await portOf(t.app); // listening before the raw sockets of the burst connect
    const requests = Array.from({ length: 30 }, (_, i) => {
      const u = users[i % 3];
      const key = keys[i % 3];
      switch (i % 5) {
        case 0:
          return streamThenLeave(t.app, '/api/ai/stream', u.auth, ask('claude-haiku-4-5'));
        case 1:
          return streamThenLeave(t.app, '/api/ai/stream', key.auth, ask('claude-haiku-4-5'));
        case 2:
          return t.http.post('/api/ai/generate').set(key.auth).send(ask('gpt-4o')).expect(200);
        case 3:
          return t.http
            .post('/api/ai/stream')
            .set(u.auth)
            .send(ask('claude-haiku-4-5'))
            .expect(200);
        default:
          return t.http
            .post('/v1/chat/completions')
            .set(key.auth)
            .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Tell me' }] })
            .expect(200);
      }
    });
    // Consumption outside a hold (as embeddings are charged), at the same time.
    const direct = users.map((u) => t.app.get(CreditsService).consume(u.user.id, 3, 'embeddings'));
    await Promise.all([...requests, ...direct]);
    expect(await waitFor(async () => (await openHolds()) === 0, 20_000)).toBe(true);

    expect(await counterMismatches(t, TZ)).toEqual(none);
    for (const [i, u] of users.entries()) {
      const ledger = await ledgerOf(t, u.user.id);
      expect(ledger.credits).toBe(ledger.ledgerSum);
      const [row] = await t.db.query(
        `SELECT
           (SELECT COALESCE(SUM(credits), 0)::int FROM daily_consumption WHERE "userId" = $1) AS "byUser",
           (SELECT COALESCE(SUM(credits), 0)::int FROM daily_key_consumption WHERE "keyId" = $2) AS "byKey",
           (SELECT -SUM(amount)::int FROM credit_transactions
             WHERE "userId" = $1 AND type = 'CONSUMPTION') AS consumed`,
        [u.user.id, keys[i].id],
      );
      expect(row.byUser).toBe(row.consumed);
      expect(row.byKey).toBeGreaterThan(0);
      expect(row.byKey).toBeLessThan(row.byUser);
      // All of it happened today (the clock is the real one): the summary reads the counter.
      expect(await usedToday(u)).toBe(row.consumed);
    }
  });

  it('reads the local day of the clock: a new day at local midnight, the old one back with it', async () => {
    const u = await newUser(t, { credits: 500 });
    await t.app.get(CreditsService).consume(u.user.id, 100, 'earlier today');
    const before = (await t.http.get('/api/credits').set(u.auth).expect(200)).body;
    expect(before.usedToday).toBe(100);
    const refused = await t.http.post('/api/ai/generate').set(u.auth).send(ask('gpt-4o'));
    expect([refused.status, refused.body.code]).toEqual([429, 'DAILY_LIMIT_REACHED']);

    // One minute past the next local midnight: the next day's row, none yet.
    clock.at = new Date(Date.parse(before.resetsAt) + 60_000);
    expect(await usedToday(u)).toBe(0);
    const res = await t.http.post('/api/ai/generate').set(u.auth).send(ask('gpt-4o')).expect(200);
    // The entry is dated by the database (today), so it counts on today's row, as in the ledger.
    expect(await usedToday(u)).toBe(0);
    clock.at = undefined;
    expect(await usedToday(u)).toBe(100 + res.body.cost);
    expect(await counterMismatches(t, TZ)).toEqual(none);
  });

  it("reads the key's day counter for its own limit, and a new day for the key at local midnight", async () => {
    // Hold for gpt-4o: ceil((2 estimated + 1000 max) * 0.00001 * 1000) = 11 credits.
    const u = await newUser(t, { credits: 500 });
    const key = await newKey(u, 11);
    const first = await t.http
      .post('/api/ai/generate')
      .set(key.auth)
      .send(ask('gpt-4o'))
      .expect(200);
    const over = await t.http.post('/api/ai/generate').set(key.auth).send(ask('gpt-4o'));
    expect([over.status, over.body]).toEqual([
      429,
      expect.objectContaining({
        code: 'KEY_DAILY_LIMIT_REACHED',
        dailyCreditLimit: 11,
        usedToday: first.body.cost,
      }),
    ]);
    clock.at = new Date(Date.parse(over.body.resetsAt) + 60_000);
    await t.http.post('/api/ai/generate').set(key.auth).send(ask('gpt-4o')).expect(200);
    expect(await counterMismatches(t, TZ)).toEqual(none);
  });

  it('are rebuilt from the ledger by the migration, whose down restores the summing key check', async () => {
    const u = await newUser(t, { credits: 500 });
    const key = await newKey(u, 100);
    await t.http.post('/api/ai/generate').set(key.auth).send(ask('gpt-4o')).expect(200);
    const migration = new DailyConsumption1796830500000();
    const runner = t.db.createQueryRunner();
    const zone = process.env.APP_TIMEZONE;
    process.env.APP_TIMEZONE = TZ;
    try {
      await migration.down(runner);
      // The old function sums the key's ledger entries since local midnight.
      const admits = async (amount: number) =>
        (
          await runner.query(
            `SELECT api_key_admits($1, $2, date_trunc('day', now() AT TIME ZONE $3) AT TIME ZONE $3) AS ok`,
            [key.id, amount, TZ],
          )
        )[0].ok as boolean;
      const [old, over] = [await admits(89), await admits(100)];
      expect([old, over]).toEqual([true, false]);
      await migration.up(runner);
    } finally {
      // Assigning undefined would store the string "undefined".
      if (zone === undefined) delete process.env.APP_TIMEZONE;
      else process.env.APP_TIMEZONE = zone;
      await runner.release();
    }
    // Every entry of this file is from today: the backfill of yesterday and today has them all.
    expect(await counterMismatches(t, TZ)).toEqual(none);
    const [row] = await t.db.query(
      `SELECT COUNT(*)::int AS n FROM daily_key_consumption WHERE "keyId" = $1`,
      [key.id],
    );
    expect(row.n).toBe(1);
    await t.http.post('/api/ai/generate').set(key.auth).send(ask('gpt-4o')).expect(200);
    expect(await counterMismatches(t, TZ)).toEqual(none);
  });
});
