import { randomBytes } from 'node:crypto';
import { AppError } from '../../../src/common/errors/app-error';
import {
  type Charge,
  CreditHoldsService,
  type OpenHold,
} from '../../../src/credits/credit-holds.service';
import { CreditsService } from '../../../src/credits/credits.service';
import { TeamLedgerService } from '../../../src/credits/team-ledger.service';
import { MetricsService } from '../../../src/metrics/metrics.service';
import { newTeam, newUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

/** One way of settling: `settle` batched, `settle` alone, or `settleWith` and a statement part. */
type Path = 'batched' | 'alone' | 'with part';

interface Case {
  name: string;
  credits: number;
  hold: number;
  cost: number;
  /** Released before the settlement: the hold is gone. */
  gone?: boolean;
  /** Settled twice at once. */
  twice?: boolean;
  /** The account (the user; for a pool, its team) is deleted before the settlement. */
  deleted?: boolean;
}

const CASES: Case[] = [
  { name: 'covered', credits: 50, hold: 10, cost: 4 },
  { name: 'from the balance', credits: 50, hold: 10, cost: 15 },
  { name: 'beyond the balance', credits: 30, hold: 10, cost: 70 },
  { name: 'gone', credits: 50, hold: 10, cost: 5, gone: true },
  { name: 'twice', credits: 50, hold: 10, cost: 3, twice: true },
  { name: 'zero', credits: 50, hold: 10, cost: 0 },
  { name: 'account deleted', credits: 50, hold: 10, cost: 6, deleted: true },
];

const USAGE = {
  modelId: 'gpt-4o-mini',
  promptTokens: 120,
  completionTokens: 45,
  cachedTokens: 64,
  cacheWriteTokens: null,
  reasoningTokens: 9,
  cacheSavings: 1,
};

/**
 * The settlement rule is one PostgreSQL function, whichever way a call reaches it: the same calls
 * settled alone (BATCH_STATEMENTS=false), in batches, and with another module's statement part
 * (`settleWith`) answer the same and write the same rows: every column of the ledger entries,
 * the holds, the balances, the day counters and what is owed. Each case runs on a user's own
 * balance and on a team's pool (a member's call, and a team key's), the same rule over either
 * account. Then the next admission collects a user's debt the same way.
 */
describe('one settlement rule on every path', () => {
  /** `body` with an app of `env` (one app at a time), closed afterwards. */
  async function withApp<R>(env: Record<string, string>, body: (t: TestApp) => Promise<R>) {
    const t = await createTestApp(env);
    try {
      return await body(t);
    } finally {
      await t.close();
    }
  }

  /** How many settlement statements, and requests in them, an app sent. */
  async function settlementBatches(t: TestApp) {
    const { values } = await t.app.get(MetricsService).statementBatchSize.get();
    const of = (name: string) =>
      values.find((v) => v.metricName === name && v.labels.statement === 'settlement')?.value ?? 0;
    return {
      statements: of('credits_statement_batch_size_count'),
      requests: of('credits_statement_batch_size_sum'),
    };
  }

  /**
   * Runs every case on a user's balance and on a team's pool, each with and without an API key
   * (a pool's: the team's key), on `path`; answers and rows, ids as labels.
   */
  async function run(t: TestApp, path: Path) {
    const holds = t.app.get(CreditHoldsService);
    const run = randomBytes(4).toString('hex'); // request ids are unique per database
    const labels = new Map<string, string>([[run, 'run']]);
    const runs = await Promise.all(
      CASES.flatMap((c) =>
        [false, true].flatMap((pool) =>
          [false, true].map(async (viaKey) => {
            const label = `${pool ? 'pool ' : ''}${c.name}${viaKey ? ' via key' : ''}`;
            const u = await newUser(t, { credits: pool ? 0 : c.credits });
            labels.set(u.user.id, `user ${label}`);
            // A pool: a team of the user alone, funded with the case's credits.
            const teamId = pool ? (await newTeam(t, u)).id : undefined;
            if (teamId) {
              labels.set(teamId, `team ${label}`);
              await t.app
                .get(TeamLedgerService)
                .grant(teamId, null, c.credits, 'ADJUSTMENT', 'pool', `pool:${run}-${label}`);
            }
            let keyId: string | undefined;
            if (viaKey) {
              const key = await t.http
                .post('/api/keys')
                .set(u.auth)
                .send({ name: 'paths', dailyCreditLimit: 1000, teamId })
                .expect(201);
              keyId = key.body.id as string;
              labels.set(keyId, `key ${label}`);
            }
            const requestId = `${run}-${label.replaceAll(' ', '-')}`;
            const hold = await holds.hold(u.user.id, c.hold, requestId, c.hold, keyId, teamId);
            if (c.gone) await holds.release(hold);
            if (c.deleted && teamId) await t.db.query('DELETE FROM teams WHERE id = $1', [teamId]);
            else if (c.deleted) await t.db.query('DELETE FROM users WHERE id = $1', [u.user.id]);
            return { c, label, hold, userId: u.user.id, keyId, teamId };
          }),
        ),
      ),
    );
    // Every settlement at once, so the batched path batches them.
    const settle = (hold: OpenHold, charge: Charge) =>
      path === 'with part'
        ? holds
            .settleWith(hold, charge, (first) => ({
              ctes: `probe AS (SELECT $${first}::int AS v)`,
              params: [7],
              result: '(SELECT v FROM probe)',
            }))
            .then(({ partResult, ...settled }) => {
              expect(partResult).toBe(7);
              return settled;
            })
        : holds.settle(hold, charge);
    const answers = await Promise.all(
      runs.flatMap(({ c, label, hold }) =>
        (c.twice ? [1, 2] : [1]).map((n) =>
          settle(hold, { cost: c.cost, description: `AI ${label}`, usage: USAGE }).then(
            (settled) => [`${label} #${n}`, settled] as const,
          ),
        ),
      ),
    );
    // The next admission of a user who owes: refused while the balance cannot pay the debt
    // and the hold, then the debt is collected with the hold, in one statement.
    const owing = runs.filter(({ c, teamId }) => c.name === 'beyond the balance' && !teamId);
    const admissions: unknown[] = [];
    for (const { userId, keyId, label } of owing) {
      const refused = await holds
        .hold(userId, 5, `${run}-owing-${label}`, 5, keyId)
        .catch((e) => e);
      admissions.push(refused instanceof AppError ? [refused.code, refused.details] : refused);
      await t.app.get(CreditsService).adjustTo(userId, 100, 'top-up');
      const hold = await holds.hold(userId, 5, `${run}-collect-${label}`, 5, keyId);
      admissions.push(await holds.settle(hold, { cost: 2, description: 'after the debt' }));
    }
    return { answers: Object.fromEntries(answers), admissions, rows: await rowsOf(t, labels, run) };
  }

  /** Every row the money rules write for the labelled users, teams and keys, ids as labels. */
  async function rowsOf(t: TestApp, labels: Map<string, string>, run: string) {
    const ids = [...labels.keys()].filter((id) => id !== run);
    const query = async (sql: string) =>
      ((await t.db.query(sql, [ids])) as { row: unknown }[])
        .map(({ row }) => relabel(JSON.stringify(row), labels))
        .sort()
        .map((text) => JSON.parse(text) as Record<string, unknown>);
    return {
      ledger: await query(
        `SELECT to_jsonb(t) - 'id' - 'createdAt' AS row FROM credit_transactions t
         WHERE t."userId" = ANY($1) OR t."teamId" = ANY($1)`,
      ),
      holds: await query(
        `SELECT to_jsonb(h) - 'id' - 'createdAt' - 'expiresAt' AS row FROM credit_holds h
         WHERE h."userId" = ANY($1) OR h."teamId" = ANY($1)`,
      ),
      balances: await query(
        `SELECT jsonb_build_object('id', u.id, 'credits', u.credits) AS row FROM users u
         WHERE u.id = ANY($1)
         UNION ALL SELECT jsonb_build_object('id', p.id, 'credits', p.credits) FROM teams p
         WHERE p.id = ANY($1)`,
      ),
      userDays: await query(
        `SELECT jsonb_build_object('userId', "userId", 'credits', SUM(credits)) AS row
         FROM daily_consumption WHERE "userId" = ANY($1) GROUP BY "userId"`,
      ),
      keyDays: await query(
        `SELECT jsonb_build_object('keyId', "keyId", 'credits', SUM(credits)) AS row
         FROM daily_key_consumption WHERE "keyId" = ANY($1) GROUP BY "keyId"`,
      ),
      owed: await query(
        `SELECT to_jsonb(s) - 'updatedAt' AS row FROM credit_shortfalls s
         WHERE s."userId" = ANY($1)`,
      ),
    };
  }

  it('answers the same and writes the same rows alone, batched and with a statement part', async () => {
    const [alone, withPart] = await withApp({ BATCH_STATEMENTS: 'false' }, async (t) => [
      await run(t, 'alone'),
      await run(t, 'with part'),
    ]);
    const [batched, batches] = await withApp(
      { BATCH_STATEMENTS: 'true' },
      async (t) => [await run(t, 'batched'), await settlementBatches(t)] as const,
    );
    expect(batched).toEqual(alone);
    expect(withPart).toEqual(alone);

    // What the rule answers, once (the rows above are then the same on every path).
    expect(alone.answers).toMatchObject({
      'covered #1': { charged: 4, shortfall: 0 },
      'from the balance #1': { charged: 15, shortfall: 0 },
      'beyond the balance via key #1': { charged: 30, shortfall: 40 },
      'gone #1': { charged: 5, shortfall: 0 },
      'twice #1': { charged: 3, shortfall: 0 },
      'twice #2': { charged: 3, shortfall: 0 },
      'zero via key #1': { charged: 0, shortfall: 0 },
      'account deleted #1': { charged: 0, shortfall: 6 },
      'pool covered #1': { charged: 4, shortfall: 0 },
      'pool from the balance via key #1': { charged: 15, shortfall: 0 },
      'pool beyond the balance #1': { charged: 30, shortfall: 40 },
      'pool gone via key #1': { charged: 5, shortfall: 0 },
      'pool twice #2': { charged: 3, shortfall: 0 },
      'pool account deleted #1': { charged: 0, shortfall: 6 },
    });
    expect(alone.admissions.slice(0, 2)).toEqual([
      ['INSUFFICIENT_CREDITS', { required: 45, balance: 0, shortfall: 40 }],
      { charged: 2, shortfall: 0 },
    ]);
    expect(alone.rows.ledger).toContainEqual({
      type: 'CONSUMPTION',
      keyId: null,
      amount: -30,
      userId: 'user beyond the balance',
      modelId: 'gpt-4o-mini',
      reference: 'consumption:run-beyond-the-balance',
      shortfall: 40,
      description: 'AI beyond the balance (shortfall of 40 credits not covered by the balance)',
      cachedTokens: 64,
      cacheSavings: 1,
      promptTokens: 120,
      reasoningTokens: 9,
      cacheWriteTokens: null,
      completionTokens: 45,
      teamId: null,
      memberId: null,
    });
    // A pool's entry names its member; its shortfall is not owed, nor its charge in a user's day.
    expect(alone.rows.ledger).toContainEqual(
      expect.objectContaining({
        type: 'CONSUMPTION',
        amount: -30,
        userId: null,
        teamId: 'team pool beyond the balance via key',
        memberId: 'user pool beyond the balance via key',
        keyId: 'key pool beyond the balance via key',
        shortfall: 40,
        description:
          'AI pool beyond the balance via key (shortfall of 40 credits not covered by the pool)',
      }),
    );
    expect(alone.rows.balances).toContainEqual({ id: 'team pool from the balance', credits: 35 });
    expect(alone.rows.balances).toContainEqual({ id: 'team pool beyond the balance', credits: 0 });
    expect(alone.rows.userDays.map(({ userId }) => userId)).not.toContainEqual(
      expect.stringMatching(/^user pool /),
    );
    expect(alone.rows.keyDays).toContainEqual({ keyId: 'key pool covered via key', credits: 4 });
    // Collected: the debt's own entry, and nothing owed any more.
    expect(alone.rows.ledger).toContainEqual(
      expect.objectContaining({
        amount: -40,
        reference: 'shortfall:run-collect-beyond the balance',
      }),
    );
    expect(alone.rows.owed).toHaveLength(2);
    expect(alone.rows.owed).toEqual(
      expect.arrayContaining([
        { userId: 'user beyond the balance', credits: 0 },
        { userId: 'user beyond the balance via key', credits: 0 },
      ]),
    );

    // The batched app did batch the settlements.
    expect(batches.requests).toBeGreaterThan(batches.statements);
  });
});

/** `text` with every labelled id replaced by its label. */
function relabel(text: string, labels: Map<string, string>): string {
  let out = text;
  for (const [id, label] of labels) out = out.replaceAll(id, label);
  return out;
}
