// The batched admission and settlement (natural batching, BATCH_STATEMENTS): one statement for
// every request that arrived while the previous one was in flight. The rules live in the
// functions `admit_holds` and `settle_holds` (migration BatchedHolds), which apply those of
// ADMISSION_SQL and SETTLE_CTES row by row, in order.

/**
 * Admits a batch: $1 user ids (uuid[]), $2 hold amounts (int[]), $3 daily estimates (int[], null
 * for none), $4 request ids (varchar[]), $5 API key ids (uuid[], null for none), $6 each
 * request's "now" (timestamptz[], from the Clock), then $7 APP_TIMEZONE, $8 daily limits by plan
 * (JSON), $9 default limit, $10 hold TTL in seconds. One row per request, in order: `ord`
 * (1-based), `found` (false: no such user), and ADMISSION_SQL's columns (`id` the new hold, null
 * when refused; `owed` what the user owes, which refuses the row: migration CreditShortfalls), or
 * `errorCode` (SQLSTATE) and `errorMessage` when that row failed (undone; the others commit). Locks the batch's key rows, then its user rows, each by id.
 */
export const ADMIT_BATCH_SQL = `SELECT r_ord AS ord, r_found AS found, r_balance AS balance,
     r_used AS used, r_held AS held, r_daily_limit AS "dailyLimit", r_resets_at AS "resetsAt",
     r_key_admits AS "keyAdmits", r_hold AS id, r_error_code AS "errorCode",
     r_error_message AS "errorMessage", r_owed AS owed
   FROM admit_holds($1::uuid[], $2::int[], $3::int[], $4::varchar[], $5::uuid[],
     $6::timestamptz[], $7::text, $8::jsonb, $9::int, $10::int)`;

/**
 * Settles a batch (SETTLE_CTES per row): $1 hold ids (uuid[]), $2 their users (uuid[], locked
 * by id first), $3 costs (int[]), $4 descriptions, $5 references (varchar[]), $6 model ids
 * (varchar[], null when unknown), $7 prompt and $8 completion tokens (int[], null when unknown),
 * $9 API key ids (uuid[], null for none), $10 APP_TIMEZONE, then $11 cache reads, $12 cache
 * writes, $13 reasoning tokens and $14 cache savings (int[], null when unknown; migration
 * TokenKinds). One row per request, in order:
 * `ord`, `charged` (null when the hold does not cover the cost or is gone: nothing happened for
 * that row), or `errorCode` and `errorMessage` when that row failed (undone; the others commit).
 */
export const SETTLE_BATCH_SQL = `SELECT r_ord AS ord, r_charged AS charged, r_error_code AS "errorCode",
     r_error_message AS "errorMessage"
   FROM settle_holds($1::uuid[], $2::uuid[], $3::int[], $4::varchar[], $5::varchar[],
     $6::varchar[], $7::int[], $8::int[], $9::uuid[], $10::text, $11::int[], $12::int[],
     $13::int[], $14::int[])`;
