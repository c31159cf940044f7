import { DAY_CTE, HELD, RESETS_AT, USED_TODAY } from './daily-usage.sql';
import { DAILY_LIMITS } from './pricing';

// The statements of `CreditHoldsService.hold` (admission), their text built once.

/** Spec Limits 3 by plan, as the statement below reads them (`$6 ->> plan`). */
export const DAILY_LIMITS_JSON = JSON.stringify(DAILY_LIMITS);

/**
 * The admission statement of `hold` (one round trip, text built once): $1 user, $2 now, $3 time
 * zone, $4 amount, $5 daily estimate or null, $6 daily limits by plan (JSON), $7 default limit,
 * $8 request id, $9 hold TTL in seconds, $10 API key id or null. `k` checks the key's own daily
 * limit (`api_key_admits`, migration ApiKeys: it locks the key row and reads fresh counts, so
 * parallel requests through one key take turns), worst case included: consumed today + held +
 * this hold must fit.
 */
export const ADMISSION_SQL = `WITH ${DAY_CTE}, u AS (
     SELECT id, credits, ${USED_TODAY} AS used, ${HELD} AS held,
       COALESCE(($6::jsonb ->> plan)::int, $7) AS "dailyLimit"
     FROM users WHERE id = $1
   ), k AS (
     SELECT CASE WHEN $10::uuid IS NULL THEN true
       ELSE api_key_admits($10::uuid, $4::int, (SELECT start FROM day)) END AS ok
   ), taken AS (
     UPDATE users SET credits = users.credits - $4 FROM u, k
     WHERE users.id = u.id AND users.credits >= $4 AND k.ok
       AND ($5::int IS NULL OR u.used + u.held + $5 <= u."dailyLimit")
     RETURNING users.id
   ), hold AS (
     INSERT INTO credit_holds ("userId", amount, "requestId", "expiresAt", "keyId")
     SELECT id, $4, $8, now() + make_interval(secs => $9), $10::uuid FROM taken
     RETURNING id
   )
   SELECT u.credits AS balance, u.used, u.held, u."dailyLimit", ${RESETS_AT} AS "resetsAt",
     k.ok AS "keyAdmits", hold.id
   FROM u CROSS JOIN k LEFT JOIN hold ON true`;

/** Today's consumption through key `$1` (same day as the admission's `$2`/`$3`), and its limit. */
export const KEY_USAGE_SQL = `WITH ${DAY_CTE}
   SELECT k."dailyCreditLimit" AS "limit",
     (SELECT COALESCE(-SUM(ct.amount), 0)::int FROM credit_transactions ct, day
       WHERE ct."keyId" = k.id AND ct.type = 'CONSUMPTION' AND ct."createdAt" >= day.start
         AND ct."createdAt" < day.start + interval '1 day') AS used
   FROM api_keys k WHERE k.id = $1`;

/**
 * The usual settlement as CTEs (`h`, `u`, `t`; `t.charged` is the amount consumed, no row when the
 * hold does not cover the cost or is gone): $1 hold id, $2 cost, $3 description, $4 reference,
 * $5 model id, $6 prompt tokens, $7 completion tokens, $8 API key id or null.
 */
export const SETTLE_CTES = `h AS (
     DELETE FROM credit_holds WHERE id = $1 AND amount >= $2 RETURNING "userId", amount
   ), u AS (
     UPDATE users SET credits = credits + (h.amount - $2) FROM h WHERE users.id = h."userId"
     RETURNING users.id
   ), t AS (
     INSERT INTO credit_transactions
       ("userId", amount, type, description, reference, "modelId", "promptTokens", "completionTokens", "keyId")
     SELECT u.id, -$2::int, 'CONSUMPTION', $3, $4, $5, $6, $7, $8::uuid FROM u
     RETURNING -amount AS charged
   )`;

/** Placeholders SETTLE_CTES uses; a part run with it numbers its own from the next. */
export const SETTLE_PARAMS = 8;

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
