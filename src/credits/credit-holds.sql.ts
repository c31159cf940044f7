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
 * Deletes hold `$1` and returns its `amount` (no row when already settled, released or swept).
 * Deleting the row is what makes each hold's credits go back or be charged once.
 */
export const DELETE_HOLD_SQL = 'DELETE FROM credit_holds WHERE id = $1 RETURNING amount';

/** Returns `$2` credits of a released hold to user `$1` (same transaction as the hold's DELETE). */
export const RETURN_CREDITS_SQL = 'UPDATE users SET credits = credits + $2 WHERE id = $1';

/** Credits held for user `$1` across their open holds: `held`, an integer (0 when none). */
export const HELD_BY_SQL =
  'SELECT COALESCE(SUM(amount), 0)::int AS held FROM credit_holds WHERE "userId" = $1';

/**
 * Returns the credits of holds past their expiry, at most 1000 per run, one UPDATE per user;
 * `SKIP LOCKED` lets every instance and worker run it at once. Rows: `{id, holds}` per user.
 */
export const SWEEP_SQL = `WITH expired AS (
         SELECT id FROM credit_holds WHERE "expiresAt" < now()
         ORDER BY "expiresAt" LIMIT 1000 FOR UPDATE SKIP LOCKED
       ), swept AS (
         DELETE FROM credit_holds h USING expired e WHERE h.id = e.id RETURNING h."userId", h.amount
       ), totals AS (
         SELECT "userId", SUM(amount)::int AS amount, COUNT(*)::int AS holds FROM swept GROUP BY "userId"
       )
       UPDATE users u SET credits = u.credits + t.amount FROM totals t WHERE u.id = t."userId"
       RETURNING u.id, t.holds`;
