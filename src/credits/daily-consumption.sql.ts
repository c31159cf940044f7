/**
 * The day counters of consumption, so the daily limits read one row instead of summing the day's
 * ledger:
 * - `daily_consumption ("userId", day, credits)`, primary key ("userId", day);
 * - `daily_key_consumption ("keyId", day, credits)`, primary key ("keyId", day).
 *
 * Invariant: `credits` = Σ |amount| of the CONSUMPTION entries of that user (key) whose
 * `createdAt` falls on local date `day` in APP_TIMEZONE. Only the statements below and
 * SETTLE_CTES write them, each in the same statement as the CONSUMPTION entry, so entry and
 * counters commit together. The ledger stays the truth: the counters can be rebuilt from it
 * (migration DailyConsumption does so for the recent days).
 */

/**
 * CTEs that add the CONSUMPTION entry written by CTE `t` to the day counters. `t` must return
 * `"userId"`, `"keyId"` (null without a key), `"createdAt"` and `charged` (credits ≥ 0); `tz` is
 * the placeholder of APP_TIMEZONE (e.g. `'$9'`). The day is the local date of the entry's own
 * `createdAt`, the database's `now()` at insert, so the counter of a day always equals the
 * ledger's sum over that day, whatever clock the admission reads "today" from. A zero charge
 * writes nothing.
 */
export function countConsumptionCtes(tz: string): string {
  return `consumed_user_day AS (
     INSERT INTO daily_consumption ("userId", day, credits)
     SELECT t."userId", (t."createdAt" AT TIME ZONE ${tz}::text)::date, t.charged FROM t
     WHERE t.charged > 0
     ON CONFLICT ("userId", day) DO UPDATE SET credits = daily_consumption.credits + EXCLUDED.credits
   ), consumed_key_day AS (
     INSERT INTO daily_key_consumption ("keyId", day, credits)
     SELECT t."keyId", (t."createdAt" AT TIME ZONE ${tz}::text)::date, t.charged FROM t
     WHERE t.charged > 0 AND t."keyId" IS NOT NULL
     ON CONFLICT ("keyId", day) DO UPDATE SET credits = daily_key_consumption.credits + EXCLUDED.credits
   )`;
}

/**
 * A CONSUMPTION entry and its day counters in one statement, for every consumption outside the
 * usual settlement (a settlement the hold does not cover, embeddings): $1 user, $2 credits
 * consumed (integer ≥ 0; the entry's amount is its negative), $3 description, $4 reference or
 * null (unique: a request is charged once), $5 model id, $6 prompt tokens, $7 completion tokens
 * (null when unknown), $8 API key id or null, $9 APP_TIMEZONE, then of the tokens $10 cache reads,
 * $11 cache writes, $12 reasoning, and $13 the cache savings in credits (each null when unknown).
 * One row: `charged`.
 */
export const INSERT_CONSUMPTION_SQL = `WITH t AS (
     INSERT INTO credit_transactions
       ("userId", amount, type, description, reference, "modelId", "promptTokens", "completionTokens", "keyId",
        "cachedTokens", "cacheWriteTokens", "reasoningTokens", "cacheSavings")
     VALUES ($1, -$2::int, 'CONSUMPTION', $3, $4, $5, $6, $7, $8::uuid, $10::int, $11::int, $12::int, $13::int)
     RETURNING "userId", "keyId", "createdAt", -amount AS charged
   ), ${countConsumptionCtes('$9')}
   SELECT charged FROM t`;
