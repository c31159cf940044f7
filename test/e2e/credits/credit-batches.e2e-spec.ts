import { BatchedHolds1796840000000 } from '../../../migrations/1796840000000-BatchedHolds';
import { TokenKinds1796841500000 } from '../../../migrations/1796841500000-TokenKinds';
import { CreditShortfalls1796843000000 } from '../../../migrations/1796843000000-CreditShortfalls';
import { SettlementRule1796843300000 } from '../../../migrations/1796843300000-SettlementRule';
import { AdmissionRule1796843400000 } from '../../../migrations/1796843400000-AdmissionRule';
import { Budgets1796843500000 } from '../../../migrations/1796843500000-Budgets';
import { TeamPools1796843600000 } from '../../../migrations/1796843600000-TeamPools';
import { CreditHoldsService, type OpenHold } from '../../../src/credits/credit-holds.service';
import { MetricsService } from '../../../src/metrics/metrics.service';
import { newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * Natural batching of the admission and settlement statements (BATCH_STATEMENTS, on by
 * default): calls made while one statement is in flight go together as the next one. A batch
 * decides its rows one by one in order, and a row that fails fails alone.
 */
describe('credit statements in batches', () => {
  let t: TestApp;
  let holds: CreditHoldsService;

  /** Flushes and requests per statement so far (the batch size histogram). */
  const batches = async (statement: 'admission' | 'settlement') => {
    const { values } = await t.app.get(MetricsService).statementBatchSize.get();
    const of = (name: string) =>
      values.find((v) => v.metricName === name && v.labels.statement === statement)?.value ?? 0;
    return {
      flushes: of('credits_statement_batch_size_count'),
      requests: of('credits_statement_batch_size_sum'),
    };
  };

  /** Credits, open holds and Σ ledger of a user (credits + held = ledger at every commit). */
  const stateOf = async (u: TestUser) => {
    const [row] = await t.db.query(
      `SELECT u.credits,
         (SELECT COALESCE(SUM(amount), 0)::int FROM credit_holds WHERE "userId" = u.id) AS held,
         (SELECT COUNT(*)::int FROM credit_holds WHERE "userId" = u.id) AS holds,
         (SELECT COALESCE(SUM(amount), 0)::int FROM credit_transactions WHERE "userId" = u.id) AS ledger
       FROM users u WHERE u.id = $1`,
      [u.user.id],
    );
    return row as { credits: number; held: number; holds: number; ledger: number };
  };

  beforeAll(async () => {
    t = await createTestApp();
    holds = t.app.get(CreditHoldsService);
  });
  afterAll(() => t.close());

  it('decides two requests of one user in one batch in order: the second sees the first hold', async () => {
    const [a, b] = [await newUser(t, { credits: 30 }), await newUser(t, { credits: 30 })];
    const before = await batches('admission');
    // The first call goes alone at once; the other four arrive while it is in flight.
    const results = await Promise.allSettled([
      holds.hold(b.user.id, 5, 'order-b0'),
      holds.hold(a.user.id, 20, 'order-a1'),
      holds.hold(a.user.id, 20, 'order-a2'),
      holds.hold(a.user.id, 10, 'order-a3'),
      holds.hold(b.user.id, 25, 'order-b1'),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
      details: { required: 20, balance: 10 },
    });
    expect(await batches('admission')).toEqual({
      flushes: before.flushes + 2,
      requests: before.requests + 5,
    });
    expect(await stateOf(a)).toEqual({ credits: 0, held: 30, holds: 2, ledger: 30 });
    expect(await stateOf(b)).toEqual({ credits: 0, held: 30, holds: 2, ledger: 30 });
  });

  it('fails only the admission row that breaks a constraint; the rest of its batch commits', async () => {
    const u = await newUser(t, { credits: 100 });
    const first = holds.hold(u.user.id, 1, 'dup-first');
    const batch = [
      holds.hold(u.user.id, 10, 'dup-ok-1'),
      holds.hold(u.user.id, 10, 'dup-first'), // the request id of the hold above: unique
      holds.hold(u.user.id, 10, 'dup-ok-2'),
    ];
    await first;
    const results = await Promise.allSettled(batch);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
    expect(await stateOf(u)).toEqual({ credits: 79, held: 21, holds: 3, ledger: 100 });
  });

  it('fails only the settlement row that breaks a constraint; the others are charged once', async () => {
    const u = await newUser(t, { credits: 100 });
    const [h0, h1, h2, h3] = await Promise.all(
      ['s0', 's1', 's2', 's3'].map((id) => holds.hold(u.user.id, 10, id)),
    );
    // An entry already recorded under h2's reference: its CONSUMPTION insert must fail.
    await t.db.query(
      `INSERT INTO credit_transactions ("userId", amount, type, description, reference)
       VALUES ($1, 0, 'CONSUMPTION', 'recorded before', 'consumption:s2')`,
      [u.user.id],
    );
    const before = await batches('settlement');
    const charge = { cost: 4, description: 'batched' };
    const results = await Promise.allSettled(
      [h0, h1, h2, h3].map((h: OpenHold) => holds.settle(h, charge)),
    );
    expect(await batches('settlement')).toEqual({
      flushes: before.flushes + 2,
      requests: before.requests + 4,
    });
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
    // Three charged 4 each; h2's hold is still open, its row undone.
    expect(await stateOf(u)).toEqual({ credits: 78, held: 10, holds: 1, ledger: 88 });
    const [{ used }] = await t.db.query(
      `SELECT COALESCE(SUM(credits), 0)::int AS used FROM daily_consumption WHERE "userId" = $1`,
      [u.user.id],
    );
    expect(used).toBe(12);
    await holds.release(h2);
    expect(await stateOf(u)).toEqual({ credits: 88, held: 0, holds: 0, ledger: 88 });
  });

  it('settles a hold twice in one batch once, and an uncovered cost from the balance', async () => {
    const u = await newUser(t, { credits: 50 });
    const [h0, h1] = await Promise.all([
      holds.hold(u.user.id, 10, 'twice-0'),
      holds.hold(u.user.id, 10, 'twice-1'),
    ]);
    const results = await Promise.all([
      holds.settle(h0, { cost: 1, description: 'first' }),
      holds.settle(h1, { cost: 3, description: 'x' }),
      holds.settle(h1, { cost: 3, description: 'x again' }),
      holds.settle(h0, { cost: 15, description: 'more than held' }),
    ]);
    expect(results.map((r) => r.charged)).toEqual([1, 3, 3, 1]);
    expect(await stateOf(u)).toEqual({ credits: 46, held: 0, holds: 0, ledger: 46 });
    const h2 = await holds.hold(u.user.id, 10, 'twice-2');
    expect(await holds.settle(h2, { cost: 70, description: 'over' })).toEqual({
      charged: 46,
      shortfall: 24,
    });
    expect(await stateOf(u)).toEqual({ credits: 0, held: 0, holds: 0, ledger: 0 });
  });

  it('answers USER_NOT_FOUND for its own row only', async () => {
    const u = await newUser(t, { credits: 10 });
    const first = holds.hold(u.user.id, 1, 'nf-first');
    const batch = [
      holds.hold('00000000-0000-4000-8000-000000000000', 1, 'nf-ghost'),
      holds.hold(u.user.id, 2, 'nf-real'),
    ];
    await first;
    const [ghost, real] = await Promise.allSettled(batch);
    expect(ghost).toMatchObject({ status: 'rejected', reason: { code: 'USER_NOT_FOUND' } });
    expect(real.status).toBe('fulfilled');
    expect(await stateOf(u)).toEqual({ credits: 7, held: 3, holds: 2, ledger: 10 });
  });

  it('migrations TeamPools, Budgets, AdmissionRule, SettlementRule, CreditShortfalls, TokenKinds then BatchedHolds: down drops both functions, up creates them again', async () => {
    const functions = async () =>
      (
        await t.db.query(
          `SELECT proname FROM pg_proc WHERE proname IN ('admit_holds', 'settle_holds') ORDER BY 1`,
        )
      ).map((r: { proname: string }) => r.proname);
    const runner = t.db.createQueryRunner();
    try {
      // Reverted in order: TokenKinds restores BatchedHolds' settle_holds, which down then drops.
      const migration = new BatchedHolds1796840000000();
      const kinds = new TokenKinds1796841500000();
      const shortfalls = new CreditShortfalls1796843000000();
      const settlement = new SettlementRule1796843300000();
      const admission = new AdmissionRule1796843400000();
      const budgets = new Budgets1796843500000();
      const pools = new TeamPools1796843600000();
      await pools.down(runner); // restores the functions of Budgets, without pools
      await budgets.down(runner); // restores the admit_holds and settle_holds without budgets
      await admission.down(runner); // restores the admit_holds of arrays
      await settlement.down(runner); // restores the settle_holds of arrays
      expect(await functions()).toEqual(['admit_holds', 'settle_holds']);
      await shortfalls.down(runner); // restores BatchedHolds' admit_holds
      expect(await functions()).toEqual(['admit_holds', 'settle_holds']);
      await kinds.down(runner);
      expect(await functions()).toEqual(['admit_holds', 'settle_holds']);
      await migration.down(runner);
      expect(await functions()).toEqual([]);
      await migration.up(runner);
      await kinds.up(runner);
      await shortfalls.up(runner);
      await settlement.up(runner);
      await admission.up(runner);
      await budgets.up(runner);
      await pools.up(runner);
      expect(await functions()).toEqual(['admit_holds', 'settle_holds']);
    } finally {
      await runner.release();
    }
    const u = await newUser(t, { credits: 5 });
    await holds.settle(await holds.hold(u.user.id, 5, 'after-up'), { cost: 2, description: 'x' });
    expect(await stateOf(u)).toEqual({ credits: 3, held: 0, holds: 0, ledger: 3 });
  });
});
