import { ThrottlerModule } from '@nestjs/throttler';
import { randomUUID } from 'node:crypto';
import { BudgetAlertsService } from '../../src/budgets/budget-alerts.service';
import { BudgetsModule } from '../../src/budgets/budgets.module';
import { BudgetsService, type SetBudget } from '../../src/budgets/budgets.service';
import type { SessionUser } from '../../src/common/auth/session-user';
import { AppError } from '../../src/common/errors/app-error';
import { CreditHoldsService } from '../../src/credits/credit-holds.service';
import { CreditsService } from '../../src/credits/credits.service';
import { CREDITS_ERRORS, CreditsErrorCode } from '../../src/credits/credits.errors';
import { TeamLedgerService } from '../../src/credits/team-ledger.service';
import { ApiKeysService } from '../../src/keys/api-keys.service';
import { TeamsService } from '../../src/teams/teams.service';
import { HandClock } from '../support/hand-clock';
import { waitFor } from '../support/wait';
import { bootModule, type ModuleApp } from '../support/module-app';
import { budgetMismatches, moveLedger } from '../support/budgets';

const HOUR = 3_600_000;

/** The HTTP status a refusal answers: its own override, else its code's (the error table). */
const statusOf = (e: AppError | undefined) =>
  e?.statusOverride ?? CREDITS_ERRORS[e?.code as CreditsErrorCode]?.status;

/** Budgets in the admission and settlement statements, at the service level. */
describe('Budgets (admission and settlement)', () => {
  let t: ModuleApp;
  let holds: CreditHoldsService;
  let budgets: BudgetsService;
  const clock = new HandClock();

  beforeAll(async () => {
    // ThrottlerModule: the API key strategy of KeysModule counts a key's requests per minute.
    t = await bootModule(
      [ThrottlerModule.forRoot([{ ttl: 60_000, limit: 1000 }]), BudgetsModule],
      { APP_TIMEZONE: 'UTC' },
      { clock },
    );
    holds = t.app.get(CreditHoldsService);
    budgets = t.app.get(BudgetsService);
  });
  afterAll(() => t.close());
  beforeEach(() => {
    clock.at = new Date();
  });

  /** A user with `credits`, as the session they act with. */
  async function newUser(credits = 10_000): Promise<SessionUser> {
    const [{ id, email }] = await t.db.query(
      `INSERT INTO users (email, name, "emailVerifiedAt") VALUES ($1, 'B', now()) RETURNING id, email`,
      [`b-${randomUUID()}@example.com`],
    );
    await t.app.get(CreditsService).grant(id, credits, 'BONUS', 'test credits');
    return { id, email, name: 'B', role: 'USER' } as SessionUser;
  }
  const newKey = async (u: SessionUser) =>
    (await t.app.get(ApiKeysService).create(u, { name: 'script' })).id;
  const set = (u: SessionUser, b: SetBudget) => budgets.set(u, b);
  const day = (limit: number) => ({ window: 'day' as const, hours: null, limit });

  /** Holds `amount` and settles `cost` of it; the refusal when admission refuses. */
  async function spend(
    u: SessionUser,
    amount: number,
    cost = amount,
    opts: { keyId?: string; teamId?: string } = {},
  ): Promise<AppError | undefined> {
    try {
      const hold = await holds.hold(u.id, amount, randomUUID(), undefined, opts.keyId, opts.teamId);
      await holds.settle(hold, { cost, description: 'test call' });
      return undefined;
    } catch (err) {
      if (err instanceof AppError) return err;
      throw err;
    }
  }

  it('refuses the call that would pass a window, and settles each counter to the charge', async () => {
    const u = await newUser();
    await set(u, { scope: 'user', windows: [day(100)] });
    expect(await spend(u, 60, 40)).toBeUndefined();
    const refused = await spend(u, 61);
    expect(refused?.code).toBe('BUDGET_EXCEEDED');
    expect(statusOf(refused)).toBe(429);
    expect(refused?.details).toMatchObject({
      scope: 'user',
      scopeId: u.id,
      window: 'day',
      limit: 100,
      used: 40,
      held: 0,
    });
    expect(await spend(u, 60)).toBeUndefined();
    expect(await budgetMismatches(t.db)).toEqual([]);
  });

  it('counts an open hold against the window until it settles', async () => {
    const u = await newUser();
    await set(u, { scope: 'user', windows: [day(100)] });
    const first = await holds.hold(u.id, 70, randomUUID());
    expect((await spend(u, 40))?.details).toMatchObject({ used: 0, held: 70 });
    await holds.settle(first, { cost: 10, description: 'test call' });
    expect(await spend(u, 40)).toBeUndefined();
  });

  it('a total window answers 402 with no reset', async () => {
    const u = await newUser();
    await set(u, { scope: 'user', windows: [{ window: 'total', hours: null, limit: 50 }] });
    const refused = await spend(u, 51);
    expect(statusOf(refused)).toBe(402);
    expect(refused?.details).toMatchObject({ window: 'total', resetsAt: null });
  });

  it('checks the key first, then the member, the team and the user', async () => {
    const owner = await newUser();
    const member = await newUser();
    const team = await t.app.get(TeamsService).create(owner, { name: 'Pool' });
    // A call in the team's context spends from the team's pool: the owner funds it.
    await t.app.get(TeamLedgerService).transfer(owner.id, team.team.id, 5_000);
    await t.db.query(
      `INSERT INTO team_members ("teamId", "userId", role) VALUES ($1, $2, 'MEMBER')`,
      [team.team.id, member.id],
    );
    const keyId = await newKey(member);
    await set(member, { scope: 'user', windows: [day(1000)] });
    await set(owner, { scope: 'team', teamId: team.team.id, windows: [day(500)] });
    await set(owner, {
      scope: 'member',
      teamId: team.team.id,
      userId: member.id,
      windows: [day(300)],
    });
    await set(member, { scope: 'key', keyId, windows: [day(200)] });
    const inTeam = { keyId, teamId: team.team.id };
    expect((await spend(member, 201, 201, inTeam))?.details).toMatchObject({ scope: 'key' });
    expect((await spend(member, 301, 301, { teamId: team.team.id }))?.details).toMatchObject({
      scope: 'member',
      teamId: team.team.id,
    });
    // The member's cap binds even though the team's pool and the key have room.
    expect(await spend(member, 150, 150, inTeam)).toBeUndefined();
    expect((await spend(member, 151, 151, { teamId: team.team.id }))?.details).toMatchObject({
      scope: 'member',
      used: 150,
    });
    // Outside the team, team and member budgets do not apply; the user's does.
    expect(await spend(member, 400)).toBeUndefined();
    expect((await spend(member, 451))?.details).toMatchObject({ scope: 'user', used: 550 });
    // The owner's own calls in the team count against the team's window.
    expect((await spend(owner, 351, 351, { teamId: team.team.id }))?.details).toMatchObject({
      scope: 'team',
      used: 150,
    });
    expect(await budgetMismatches(t.db)).toEqual([]);
  });

  it('starts a counter made mid-window at the ledger sum, never a multiple of it', async () => {
    const u = await newUser();
    expect(await spend(u, 70)).toBeUndefined();
    await set(u, {
      scope: 'user',
      windows: [day(200), { window: 'month', hours: null, limit: 90 }],
    });
    expect((await spend(u, 31))?.details).toMatchObject({ window: 'month', used: 70 });
    // Rebuilt (lost, or made by another instance): the ledger's sum again, once.
    await t.db.query(`DELETE FROM budget_counters`);
    await Promise.all([spend(u, 10), spend(u, 10)]);
    expect((await spend(u, 11))?.details).toMatchObject({ window: 'month', used: 90 });
    expect(await budgetMismatches(t.db)).toEqual([]);
  });

  it('refuses with one check per window: 40 parallel calls never pass any limit', async () => {
    const owner = await newUser();
    const team = (await t.app.get(TeamsService).create(owner, { name: 'Busy' })).team;
    await t.app.get(TeamLedgerService).transfer(owner.id, team.id, 5_000);
    const members = await Promise.all([1, 2, 3, 4].map(() => newUser()));
    for (const m of members)
      await t.db.query(
        `INSERT INTO team_members ("teamId", "userId", role) VALUES ($1, $2, 'MEMBER')`,
        [team.id, m.id],
      );
    await set(owner, { scope: 'team', teamId: team.id, windows: [day(230)] });
    await set(owner, {
      scope: 'member',
      teamId: team.id,
      userId: members[0].id,
      windows: [day(60)],
    });
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => spend(members[i % 4], 10, 10, { teamId: team.id })),
    );
    const refused = outcomes.filter((o) => o !== undefined);
    expect(refused.every((o) => o?.code === 'BUDGET_EXCEEDED')).toBe(true);
    expect(outcomes.length - refused.length).toBe(23);
    const [row] = await t.db.query(
      `SELECT -SUM(amount)::int AS spent FROM credit_transactions
        WHERE "teamId" = $1 AND type = 'CONSUMPTION'`,
      [team.id],
    );
    expect(row.spent).toBe(230);
    expect(await budgetMismatches(t.db)).toEqual([]);
  });

  it('crossing soft thresholds makes one alert per window and threshold, even in parallel', async () => {
    const u = await newUser();
    const budget = await set(u, { scope: 'user', thresholds: [50, 80], windows: [day(100)] });
    await Promise.all(Array.from({ length: 10 }, () => spend(u, 9)));
    const crossed = await t.db.query(
      `SELECT threshold, used FROM budget_alerts WHERE "budgetId" = $1 ORDER BY threshold`,
      [budget.id],
    );
    expect(crossed.map((r: { threshold: number }) => r.threshold)).toEqual([50, 80]);
    // Told once: by this call or by the scheduled run, whichever claims them first.
    await t.app.get(BudgetAlertsService).sendPending();
    const told = async () =>
      Number(
        (
          await t.db.query(
            `SELECT count(*) FROM audit_events WHERE action = 'budget.threshold' AND "targetId" = $1`,
            [budget.id],
          )
        )[0].count,
      );
    expect(await waitFor(async () => (await told()) === 2)).toBe(true);
    expect(await t.app.get(BudgetAlertsService).sendPending()).toBe(0);
    const [{ mails }] = await t.db.query(
      `SELECT count(*)::int AS mails FROM pgboss.job WHERE name = 'mail-send' AND data ->> 'to' = $1`,
      [u.email],
    );
    expect(mails).toBe(2);
  });

  describe('windows', () => {
    it('a day window resets at local midnight in Asia/Shanghai', async () => {
      const u = await newUser();
      await set(u, { scope: 'user', timezone: 'Asia/Shanghai', windows: [day(100)] });
      expect(await spend(u, 80)).toBeUndefined();
      const [{ midnight }] = await t.db.query(
        `SELECT (date_trunc('day', now() AT TIME ZONE 'Asia/Shanghai') + interval '1 day')
           AT TIME ZONE 'Asia/Shanghai' AS midnight`,
      );
      clock.at = new Date(midnight.getTime() - 1);
      expect((await spend(u, 21, 0))?.details).toMatchObject({ used: 80 });
      clock.at = new Date(midnight);
      expect(await spend(u, 21, 0)).toBeUndefined();
    });

    it('a day in America/New_York is one local day across DST (23 and 25 hours)', async () => {
      const u = await newUser();
      await set(u, { scope: 'user', timezone: 'America/New_York', windows: [day(100)] });
      // Charges at the edges of Sunday 8 March 2026 (clocks spring forward) and of Sunday
      // 1 November 2026 (they fall back), each of 10 credits.
      const at = [
        '2026-03-08T04:59:59Z', // Sat 23:59:59 EST
        '2026-03-08T05:00:00Z', // Sun 00:00 EST
        '2026-03-09T03:59:59Z', // Sun 23:59:59 EDT
        '2026-03-09T04:00:00Z', // Mon 00:00 EDT
        '2026-11-01T03:59:59Z', // Sat 23:59:59 EDT
        '2026-11-01T04:00:00Z', // Sun 00:00 EDT
        '2026-11-02T04:59:59Z', // Sun 23:59:59 EST
        '2026-11-02T05:00:00Z', // Mon 00:00 EST
      ];
      for (let i = 0; i < at.length; i++) expect(await spend(u, 10)).toBeUndefined();
      await moveLedger(t.db, u.id, at);
      for (const noon of ['2026-03-08T16:00:00Z', '2026-11-01T16:00:00Z']) {
        clock.at = new Date(noon);
        // 2 of the 8 charges fall in the local day: 20 used, so 81 is refused and 80 is not.
        expect((await spend(u, 81, 0))?.details).toMatchObject({ used: 20 });
        expect(await spend(u, 80, 0)).toBeUndefined();
      }
      const [len] = await t.db.query(
        `SELECT extract(epoch FROM budget_window_end('day', 'America/New_York',
            '2026-03-08T05:00:00Z', NULL) - '2026-03-08T05:00:00Z'::timestamptz) / 3600 AS spring,
          extract(epoch FROM budget_window_end('day', 'America/New_York',
            '2026-11-01T04:00:00Z', NULL) - '2026-11-01T04:00:00Z'::timestamptz) / 3600 AS fall`,
      );
      expect([Number(len.spring), Number(len.fall)]).toEqual([23, 25]);
    });

    it('an hours window opens at the first charge and closes N hours later', async () => {
      const u = await newUser();
      await set(u, { scope: 'user', windows: [{ window: 'hours', hours: 5, limit: 100 }] });
      expect(await spend(u, 60)).toBeUndefined(); // no session was open: this charge opens one
      const [{ start }] = await t.db.query(
        `SELECT start FROM budget_counters c
        JOIN budget_windows w ON w.id = c."windowId" JOIN budgets b ON b.id = w."budgetId"
        WHERE b."userId" = $1`,
        [u.id],
      );
      clock.at = new Date(start.getTime() + 5 * HOUR - 1);
      const refused = await spend(u, 41, 0);
      expect(refused?.details).toMatchObject({ window: 'hours', hours: 5, used: 60 });
      expect(refused?.details?.resetsAt).toBe(new Date(start.getTime() + 5 * HOUR).toISOString());
      clock.at = new Date(start.getTime() + 5 * HOUR);
      expect(await spend(u, 41, 0)).toBeUndefined();
    });
  });
});
