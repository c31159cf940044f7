import { DAY_CTE } from './daily-usage.sql';

// The statements of `CreditHoldsService` beside the money rules: release, sweep, open holds and
// the detail of a key's refusal. Admission and settlement are PostgreSQL functions, run by the
// statements of credit-hold-statements.sql.ts.

/**
 * Today's consumption through key `$1` (same day as the admission's `$2`/`$3`; one row of the day
 * counter `daily_key_consumption`), and its limit.
 */
export const KEY_USAGE_SQL = `WITH ${DAY_CTE}
   SELECT k."dailyCreditLimit" AS "limit",
     COALESCE((SELECT dk.credits FROM daily_key_consumption dk, day
       WHERE dk."keyId" = k.id AND dk.day = day.today), 0) AS used
   FROM api_keys k WHERE k.id = $1`;

/**
 * Releases hold `$1`: deletes it and returns its credits to its account (the user's balance, or
 * the team's pool), in one statement; nothing when it was already settled, released or swept.
 * Deleting the row is what makes each hold's credits go back or be charged once.
 */
export const RELEASE_HOLD_SQL = `WITH gone AS (
         DELETE FROM credit_holds WHERE id = $1 RETURNING "userId", "teamId", amount
       ), to_user AS (
         UPDATE users u SET credits = u.credits + g.amount FROM gone g WHERE u.id = g."userId"
       )
       UPDATE teams t SET credits = t.credits + g.amount FROM gone g WHERE t.id = g."teamId"`;

/** Credits held for user `$1` across their open holds: `held`, an integer (0 when none). */
export const HELD_BY_SQL =
  'SELECT COALESCE(SUM(amount), 0)::int AS held FROM credit_holds WHERE "userId" = $1';

/**
 * Returns the credits of holds past their expiry, at most 1000 per run, one UPDATE per account
 * (user or team pool); `SKIP LOCKED` lets every instance and worker run it at once. One row:
 * `swept`, the number of holds deleted.
 */
export const SWEEP_SQL = `WITH expired AS (
         SELECT id FROM credit_holds WHERE "expiresAt" < now()
         ORDER BY "expiresAt" LIMIT 1000 FOR UPDATE SKIP LOCKED
       ), swept AS (
         DELETE FROM credit_holds h USING expired e WHERE h.id = e.id
         RETURNING h."userId", h."teamId", h.amount
       ), to_users AS (
         UPDATE users u SET credits = u.credits + t.amount
         FROM (SELECT "userId", SUM(amount)::int AS amount FROM swept
               WHERE "userId" IS NOT NULL GROUP BY "userId") t
         WHERE u.id = t."userId"
       ), to_teams AS (
         UPDATE teams p SET credits = p.credits + t.amount
         FROM (SELECT "teamId", SUM(amount)::int AS amount FROM swept
               WHERE "teamId" IS NOT NULL GROUP BY "teamId") t
         WHERE p.id = t."teamId"
       )
       SELECT COUNT(*)::int AS swept FROM swept`;
