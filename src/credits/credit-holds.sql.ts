import type { StatementPart } from '../database/statement-part';
import { countConsumptionCtes } from './daily-consumption.sql';
import { DAY_CTE, HELD, RESETS_AT, USED_TODAY } from './daily-usage.sql';
import { DAILY_LIMITS } from './pricing';

// The statements of `CreditHoldsService` (admission, settlement, release, sweep), their text
// built once.

/** Spec Limits 3 by plan, as the statement below reads them (`$6 ->> plan`). */
export const DAILY_LIMITS_JSON = JSON.stringify(DAILY_LIMITS);

/**
 * The admission statement of `hold` (one round trip, text built once): $1 user, $2 now, $3 time
 * zone, $4 amount, $5 daily estimate or null, $6 daily limits by plan (JSON), $7 default limit,
 * $8 request id, $9 hold TTL in seconds, $10 API key id or null. "Used today" is one row of the
 * day counter `daily_consumption` (USED_TODAY), not a sum over the day's ledger. `k` checks the
 * key's own daily limit (`api_key_admits`, migration DailyConsumption: it locks the key row and
 * reads fresh values of the key's day counter and open holds, so parallel requests through one
 * key take turns), worst case included: consumed today + held + this hold must fit. A user who
 * owes a shortfall (`owed` > 0, credit_shortfalls) is refused: the caller collects it first
 * (COLLECT_SHORTFALL_SQL) and asks again.
 * With BATCH_STATEMENTS, `admit_holds` (migration BatchedHolds) applies the same rules row by row
 * to a batch: a change here is a change there.
 */
export const ADMISSION_SQL = `WITH ${DAY_CTE}, u AS (
     SELECT id, credits, ${USED_TODAY} AS used, ${HELD} AS held,
       COALESCE(($6::jsonb ->> plan)::int, $7) AS "dailyLimit",
       COALESCE((SELECT s.credits FROM credit_shortfalls s WHERE s."userId" = $1), 0) AS owed
     FROM users WHERE id = $1
   ), k AS (
     SELECT CASE WHEN $10::uuid IS NULL THEN true
       ELSE api_key_admits($10::uuid, $4::int, (SELECT today FROM day)) END AS ok
   ), taken AS (
     UPDATE users SET credits = users.credits - $4 FROM u, k
     WHERE users.id = u.id AND users.credits >= $4 AND k.ok AND u.owed = 0
       AND ($5::int IS NULL OR u.used + u.held + $5 <= u."dailyLimit")
     RETURNING users.id
   ), hold AS (
     INSERT INTO credit_holds ("userId", amount, "requestId", "expiresAt", "keyId")
     SELECT id, $4, $8, now() + make_interval(secs => $9), $10::uuid FROM taken
     RETURNING id
   )
   SELECT u.credits AS balance, u.used, u.held, u."dailyLimit", ${RESETS_AT} AS "resetsAt",
     k.ok AS "keyAdmits", u.owed, hold.id
   FROM u CROSS JOIN k LEFT JOIN hold ON true`;

/**
 * Collects what user `$1` owes (credit_shortfalls), in the transaction that locked the user's
 * row (LOCK_BALANCE_SQL) and checked the balance covers it: takes `$2` credits (the amount owed,
 * read under that lock) from the balance and clears the debt. The same transaction writes the
 * CONSUMPTION entry (INSERT_CONSUMPTION_SQL), so the invariant holds at commit.
 */
export const COLLECT_SHORTFALL_SQL = `WITH cleared AS (
     UPDATE credit_shortfalls SET credits = 0, "updatedAt" = now()
     WHERE "userId" = $1 AND credits = $2 RETURNING "userId"
   )
   UPDATE users SET credits = credits - $2 FROM cleared WHERE users.id = cleared."userId"
   RETURNING users.credits`;

/** `{credits}` user `$1` owes, the row locked until the transaction ends; no row when none. */
export const OWED_SQL = 'SELECT credits FROM credit_shortfalls WHERE "userId" = $1 FOR UPDATE';

/**
 * Flags a settlement the balance could not cover, in its transaction (the user's row locked):
 * `$3` credits not charged go on the CONSUMPTION entry of reference `$2` (`shortfall`) and are
 * added to what user `$1` owes.
 */
export const RECORD_SHORTFALL_SQL = `WITH flagged AS (
     UPDATE credit_transactions SET shortfall = $3 WHERE reference = $2 RETURNING id
   )
   INSERT INTO credit_shortfalls ("userId", credits) VALUES ($1, $3)
   ON CONFLICT ("userId") DO UPDATE
     SET credits = credit_shortfalls.credits + EXCLUDED.credits, "updatedAt" = now()`;

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
 * The usual settlement as CTEs (`h`, `u`, `t`, then the day counters' `consumed_user_day` and
 * `consumed_key_day`; `t.charged` is the amount consumed, no row when the hold does not cover the
 * cost or is gone): $1 hold id, $2 cost, $3 description, $4 reference, $5 model id, $6 prompt
 * tokens, $7 completion tokens, $8 API key id or null, $9 APP_TIMEZONE (the day counters' zone),
 * then of the tokens $10 cache reads, $11 cache writes, $12 reasoning, and $13 the cache savings
 * in credits (each null when unknown).
 * The CONSUMPTION entry and its day counters commit together (countConsumptionCtes).
 * With BATCH_STATEMENTS, `settle_holds` (migration BatchedHolds) applies the same rules row by
 * row to a batch: a change here is a change there.
 */
export const SETTLE_CTES = `h AS (
     DELETE FROM credit_holds WHERE id = $1 AND amount >= $2 RETURNING "userId", amount
   ), u AS (
     UPDATE users SET credits = credits + (h.amount - $2) FROM h WHERE users.id = h."userId"
     RETURNING users.id
   ), t AS (
     INSERT INTO credit_transactions
       ("userId", amount, type, description, reference, "modelId", "promptTokens", "completionTokens", "keyId",
        "cachedTokens", "cacheWriteTokens", "reasoningTokens", "cacheSavings")
     SELECT u.id, -$2::int, 'CONSUMPTION', $3, $4, $5, $6, $7, $8::uuid,
       $10::int, $11::int, $12::int, $13::int FROM u
     RETURNING "userId", "keyId", "createdAt", -amount AS charged
   ), ${countConsumptionCtes('$9')}`;

/**
 * The usual settlement alone (SETTLE_CTES' placeholders). One row: `charged`, null when the hold
 * does not cover the cost or is gone (nothing happened; the caller settles in a transaction).
 */
export const SETTLE_SQL = `WITH ${SETTLE_CTES} SELECT (SELECT charged FROM t) AS charged`;

/**
 * The usual settlement and another module's statement part in one statement (one round trip, one
 * commit): SETTLE_CTES' placeholders, then the part's after them. One row: `charged` as in
 * SETTLE_SQL, and `partResult`, the part's result expression (whether or not the hold covered
 * the cost: the part runs either way).
 */
export function settleWithPartSql(part: StatementPart<unknown>): string {
  return `WITH ${SETTLE_CTES}, ${part.ctes}
    SELECT (SELECT charged FROM t) AS charged, ${part.result} AS "partResult"`;
}

/**
 * Deletes hold `$1` and returns its `amount` (no row when already settled, released or swept).
 * Deleting the row is what makes each hold's credits go back or be charged once.
 */
export const DELETE_HOLD_SQL = 'DELETE FROM credit_holds WHERE id = $1 RETURNING amount';

/** The CONSUMPTION entry of reference `$1` (`consumption:<requestId>`): `amount`, if settled. */
export const CONSUMPTION_BY_REFERENCE_SQL =
  'SELECT amount FROM credit_transactions WHERE reference = $1';

/** Locks user `$1`'s balance for the settlement's transaction: `credits`, no row when deleted. */
export const LOCK_BALANCE_SQL = 'SELECT credits FROM users WHERE id = $1 FOR UPDATE';

/**
 * Takes `$2` credits from user `$1` (negative: gives them back). Only inside a transaction that
 * writes the matching ledger entry or deletes the matching hold, so the invariant holds at commit.
 */
export const TAKE_CREDITS_SQL = 'UPDATE users SET credits = credits - $2 WHERE id = $1';

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
