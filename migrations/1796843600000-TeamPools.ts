import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SETTLE_HOLD } from './1796843300000-SettlementRule';
import { ADMIT_HOLD, ADMIT_HOLDS, RECORD_CONSUMPTION, SETTLE_HOLDS } from './1796843500000-Budgets';
import { HELD, LEDGER_SUM } from './budgets/budget-functions';
import { editFunction, type FunctionEdit, orReplace } from './lib/function-edits';

/**
 * Team credit pools: a team is a ledger account like a user.
 * - `teams.credits` (≥ 0): the pool's balance.
 * - `credit_transactions` and `credit_holds`: an entry or hold belongs to exactly one account,
 *   `userId` (a user's own balance) or `teamId` (a team's pool); `memberId` names the member who
 *   spent, bought or transferred for a team's entry or hold (SET NULL when that user is deleted,
 *   so the pool's ledger outlives its members). Per team, as per user:
 *   `teams.credits + Σ open holds of the team = Σ ledger amounts of the team`.
 * - `api_keys.teamId`: a team's key (calls through it spend from the pool); `purchases.teamId`: a
 *   credit purchase granted into the pool.
 * - Money rules, each change a delimited block marked `team pools`:
 *   `team_pool_balance` (new: the pool's balance, its row locked, for members only, else
 *   SQLSTATE TM404), `admit_hold` (a row with `teamId` holds from the pool; the caller's plan
 *   daily limit and debt are not the pool's), `settle_hold` (still the one settlement rule, now
 *   over an account: a row with `teamId` settles against the pool, others against the user's
 *   balance; only a user owes a shortfall later), `record_consumption` (the
 *   team and member columns; a pool's entry counts in no user's day counter), `admit_holds` and
 *   `settle_holds` (a batch locks its teams' rows in id order, after keys and users).
 * - Budgets (migration Budgets) count a pool's entries and holds by their member: its member and
 *   user windows read `memberId` where a user's own rows have `userId` (`budget_ledger_sum`,
 *   `budget_held`), and `record_consumption` hands `budgets_record` the member of a pool's entry.
 *   `teamId` itself, with its indexes, came with migration Budgets; this one adds its foreign key.
 * `down` restores the functions of migrations Budgets and SettlementRule.
 */
export class TeamPools1796843600000 implements MigrationInterface {
  name = 'TeamPools1796843600000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE "teams" ADD "credits" integer NOT NULL DEFAULT 0,
        ADD CONSTRAINT "CHK_teams_credits_non_negative" CHECK ("credits" >= 0)`,
    );
    for (const table of ['credit_transactions', 'credit_holds']) {
      await q.query(
        `ALTER TABLE "${table}" ALTER COLUMN "userId" DROP NOT NULL,
          ADD CONSTRAINT "FK_${table}_team" FOREIGN KEY ("teamId") REFERENCES "teams"("id")
            ON DELETE CASCADE,
          ADD "memberId" uuid REFERENCES "users"("id") ON DELETE SET NULL,
          ADD CONSTRAINT "CHK_${table}_account" CHECK (("userId" IS NULL) <> ("teamId" IS NULL))`,
      );
      await q.query(
        `CREATE INDEX "IDX_${table}_member" ON "${table}" ("memberId") WHERE "memberId" IS NOT NULL`,
      );
    }
    await q.query(
      `ALTER TABLE "api_keys" ADD "teamId" uuid REFERENCES "teams"("id") ON DELETE CASCADE`,
    );
    await q.query(`ALTER TABLE "purchases" ADD "teamId" uuid REFERENCES "teams"("id")
      ON DELETE SET NULL`);
    await q.query(TEAM_POOL_BALANCE);
    for (const fn of [RECORD_CONSUMPTION_V2, SETTLE_HOLD_V2, SETTLE_HOLDS_V2]) await q.query(fn);
    for (const fn of [ADMIT_HOLD_V2, ADMIT_HOLDS_V2]) await q.query(fn);
    for (const fn of [BUDGET_LEDGER_SUM, BUDGET_HELD]) await q.query(fn);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const fn of [ADMIT_HOLDS, ADMIT_HOLD, SETTLE_HOLDS, SETTLE_HOLD, RECORD_CONSUMPTION])
      await q.query(orReplace(fn));
    for (const fn of [LEDGER_SUM, HELD]) await q.query(orReplace(fn));
    await q.query('DROP FUNCTION team_pool_balance(uuid, uuid)');
    await q.query('ALTER TABLE "purchases" DROP COLUMN "teamId"');
    await q.query('ALTER TABLE "api_keys" DROP COLUMN "teamId"');
    for (const table of ['credit_transactions', 'credit_holds']) {
      // A pool's rows have no user: they go with the pools.
      await q.query(`DELETE FROM "${table}" WHERE "userId" IS NULL`);
      await q.query(
        `ALTER TABLE "${table}" DROP CONSTRAINT "CHK_${table}_account",
          DROP CONSTRAINT "FK_${table}_team", DROP COLUMN "memberId",
          ALTER COLUMN "userId" SET NOT NULL`,
      );
    }
    await q.query(
      'ALTER TABLE "teams" DROP CONSTRAINT "CHK_teams_credits_non_negative", DROP COLUMN "credits"',
    );
  }
}

/** `fn` of an earlier migration as CREATE OR REPLACE, with `edits` applied (each point unique). */
const edited = (fn: string, edits: readonly FunctionEdit[]) =>
  editFunction('TeamPools', orReplace(fn), edits);

// The pool's balance for a call of member `p_user`, the team's row locked (FOR NO KEY UPDATE, as
// its UPDATE takes): read in the admission statement itself, so a member removed or gone is
// refused at once on every instance. Not a member, or no such team: SQLSTATE TM404.
const TEAM_POOL_BALANCE = `CREATE FUNCTION team_pool_balance(p_team uuid, p_user uuid)
  RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    v_balance integer;
  BEGIN
    SELECT t.credits INTO v_balance FROM teams t
      WHERE t.id = p_team
        AND EXISTS (SELECT 1 FROM team_members m WHERE m."teamId" = t.id AND m."userId" = p_user)
      FOR NO KEY UPDATE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'user % is not a member of team %', p_user, p_team USING ERRCODE = 'TM404';
    END IF;
    RETURN v_balance;
  END $$`;

const RECORD_CONSUMPTION_V2 = edited(RECORD_CONSUMPTION, [
  [
    `"reasoningTokens", "cacheSavings", shortfall, "teamId")`,
    `"reasoningTokens", "cacheSavings", shortfall, "teamId", "memberId") -- team pools`,
  ],
  [
    `e."reasoningTokens", e."cacheSavings", e.shortfall, e."teamId"`,
    `e."reasoningTokens", e."cacheSavings", e.shortfall, e."teamId", e."memberId"`,
  ],
  [
    `    v_at timestamptz; -- budgets`,
    `    v_at timestamptz; -- budgets
    v_member uuid; -- team pools`,
  ],
  [
    `"teamId", "createdAt" -- budgets
      INTO v_user, v_key, v_charged, v_day, v_team, v_at;`,
    `"teamId", "createdAt", "memberId" -- budgets, team pools
      INTO v_user, v_key, v_charged, v_day, v_team, v_at, v_member;`,
  ],
  [
    `PERFORM budgets_record(v_user, v_team, v_key, v_charged, v_at); -- budgets`,
    `PERFORM budgets_record(COALESCE(v_user, v_member), v_team, v_key, v_charged, v_at); -- budgets; team pools: a pool's entry counts for its member`,
  ],
  [
    `    IF v_charged > 0 THEN
      INSERT INTO daily_consumption`,
    `    IF v_charged > 0 AND v_user IS NOT NULL THEN -- team pools: a pool's entry is no user's day
      INSERT INTO daily_consumption`,
  ],
  [
    `        DO UPDATE SET credits = daily_consumption.credits + EXCLUDED.credits;
      IF v_key IS NOT NULL THEN`,
    `        DO UPDATE SET credits = daily_consumption.credits + EXCLUDED.credits;
    END IF;
    IF v_charged > 0 THEN
      IF v_key IS NOT NULL THEN`,
  ],
]);

// settle_hold over an account: the team's pool for a hold of a team (`p_row.teamId`; then
// `p_row.userId` is the member who spent), else the user's balance, by the same rule: the cost
// from the hold, the rest from the account down to 0, what it cannot cover the entry's shortfall;
// the account's row gone: nothing charged, the whole cost the shortfall. A pool's entry is the
// pool's (`teamId`, the member in `memberId`, no `userId`); a member whose account was deleted
// while the call ran is not named (`memberId` null, as ON DELETE SET NULL leaves their earlier
// entries), and the pool is charged all the same. Their row is locked FOR KEY SHARE until the
// entry commits, so a deletion either waits for it or has already happened. Only a user owes a
// shortfall later (credit_shortfalls, collected by their next admission): a pool's is written
// off, since no admission of the pool could collect it without holding back its members' calls.
export const SETTLE_HOLD_V2 = edited(SETTLE_HOLD, [
  [
    `    v_user uuid := (p_row ->> 'userId')::uuid;`,
    `    v_user uuid := (p_row ->> 'userId')::uuid;
    v_team uuid := (p_row ->> 'teamId')::uuid; -- team pools
    v_member uuid; -- team pools`,
  ],
  [
    `    IF v_held >= v_cost THEN
      UPDATE users u SET credits = u.credits + (v_held - v_cost) WHERE u.id = v_user;
      charged := v_cost;
    ELSE
      SELECT u.credits INTO v_balance FROM users u WHERE u.id = v_user;
      IF FOUND THEN
        charged := v_held + LEAST(v_cost - v_held, v_balance);
        UPDATE users u SET credits = u.credits - (charged - v_held) WHERE u.id = v_user;
      END IF;
    END IF;
    IF NOT FOUND THEN -- the user's row is gone
      charged := 0; shortfall := v_cost;
      RETURN;
    END IF;
    shortfall := v_cost - charged;`,
    `    -- team pools: the account is the team's pool or the user's balance, its row locked
    IF v_team IS NULL THEN
      SELECT u.credits INTO v_balance FROM users u WHERE u.id = v_user FOR NO KEY UPDATE;
    ELSE
      SELECT t.credits INTO v_balance FROM teams t WHERE t.id = v_team FOR NO KEY UPDATE;
    END IF;
    IF NOT FOUND THEN -- the account's row is gone
      charged := 0; shortfall := v_cost;
      RETURN;
    END IF;
    charged := LEAST(v_cost, v_held + v_balance);
    IF v_team IS NULL THEN
      UPDATE users u SET credits = u.credits + v_held - charged WHERE u.id = v_user;
    ELSE
      UPDATE teams t SET credits = t.credits + v_held - charged WHERE t.id = v_team;
    END IF;
    shortfall := v_cost - charged;`,
  ],
  [
    `format(' (shortfall of %s credits not covered by the balance)', shortfall)`,
    `format(' (shortfall of %s credits not covered by the %s)', shortfall,
          CASE WHEN v_team IS NULL THEN 'balance' ELSE 'pool' END)`,
  ],
  [
    `    v_done := record_consumption(p_row || jsonb_build_object('amount', -charged,`,
    `    IF v_team IS NOT NULL THEN -- team pools: the member, while their account exists
      SELECT u.id INTO v_member FROM users u WHERE u.id = v_user FOR KEY SHARE;
    END IF;
    v_done := record_consumption(p_row
      || CASE WHEN v_team IS NOT NULL -- team pools: the pool's entry, its member named
        THEN jsonb_build_object('userId', NULL, 'memberId', v_member) ELSE '{}' END
      || jsonb_build_object('amount', -charged,`,
  ],
  [
    `    IF shortfall > 0 THEN
      INSERT INTO credit_shortfalls`,
    `    IF shortfall > 0 AND v_team IS NULL THEN -- team pools: a pool owes nothing later
      INSERT INTO credit_shortfalls`,
  ],
]);

/** team pools: a batch locks its teams' rows in id order, after its keys and users. */
const LOCK_TEAMS = `
    PERFORM 1 FROM teams t
      WHERE t.id IN (SELECT (j ->> 'teamId')::uuid FROM jsonb_array_elements(p_rows) j)
      ORDER BY t.id FOR NO KEY UPDATE; -- team pools`;

/** team pools: a single row locks its team after its user, before its budgets, as a batch does. */
const ONE_USER = `(p_rows -> 0 ->> 'userId')::uuid FOR NO KEY UPDATE;`;
const LOCK_TEAM = `${ONE_USER}
      PERFORM 1 FROM teams t WHERE t.id = (p_rows -> 0 ->> 'teamId')::uuid
        FOR NO KEY UPDATE; -- team pools`;

const SETTLE_HOLDS_V2 = edited(SETTLE_HOLDS, [
  [ONE_USER, LOCK_TEAM],
  [`      ORDER BY u.id FOR NO KEY UPDATE;`, `      ORDER BY u.id FOR NO KEY UPDATE;${LOCK_TEAMS}`],
]);

const ADMIT_HOLDS_V2 = edited(ADMIT_HOLDS, [
  [ONE_USER, LOCK_TEAM],
  [`      ORDER BY u.id FOR NO KEY UPDATE;`, `      ORDER BY u.id FOR NO KEY UPDATE;${LOCK_TEAMS}`],
]);

const ADMIT_HOLD_V2 = edited(ADMIT_HOLD, [
  [
    `    r_key_admits := v_key IS NULL OR api_key_admits(v_key, v_amount, v_today);`,
    `    r_key_admits := v_key IS NULL OR api_key_admits(v_key, v_amount, v_today);
    -- team pools: the pool's balance, members only (TM404); the caller's plan daily limit and
    -- debt are their own balance's, not the pool's
    IF v_team IS NOT NULL THEN
      r_balance := team_pool_balance(v_team, v_user);
      r_owed := 0;
      v_estimate := NULL;
    END IF;`,
  ],
  [
    `      UPDATE users u SET credits = u.credits - v_amount WHERE u.id = v_user;
      INSERT INTO credit_holds ("userId", amount, "requestId", "expiresAt", "keyId", "teamId")
        VALUES (v_user, v_amount, v_request, now() + make_interval(secs => p_ttl), v_key, v_team)`,
    `      IF v_team IS NULL THEN
        UPDATE users u SET credits = u.credits - v_amount WHERE u.id = v_user;
      ELSE -- team pools: the pool pays; its hold is the team's, the member named
        UPDATE teams t SET credits = t.credits - v_amount WHERE t.id = v_team;
      END IF;
      INSERT INTO credit_holds ("userId", amount, "requestId", "expiresAt", "keyId", "teamId",
          "memberId")
        VALUES (CASE WHEN v_team IS NULL THEN v_user END, v_amount, v_request,
          now() + make_interval(secs => p_ttl), v_key, v_team,
          CASE WHEN v_team IS NOT NULL THEN v_user END)`,
  ],
]);

// Budgets of migration Budgets, a pool's rows counted by their member: a member's and a user's
// windows read `memberId` where the user's own rows have `userId`.
const BUDGET_LEDGER_SUM = edited(LEDGER_SUM, [
  [
    `FROM credit_transactions t WHERE t."userId" = p_user
        AND`,
    `FROM credit_transactions t
        WHERE (t."userId" = p_user OR t."memberId" = p_user) -- team pools
        AND`,
  ],
  [`(p_scope = 'team' OR t."userId" = p_user)`, `(p_scope = 'team' OR t."memberId" = p_user)`],
]);

const BUDGET_HELD = edited(HELD, [
  [
    `FROM credit_holds h WHERE h."userId" = p_user);`,
    `FROM credit_holds h
        WHERE h."userId" = p_user OR h."memberId" = p_user); -- team pools`,
  ],
  [`(p_scope = 'team' OR h."userId" = p_user)`, `(p_scope = 'team' OR h."memberId" = p_user)`],
]);
