/**
 * Usage statistics from the CONSUMPTION entries of the ledger, which carry the
 * model and tokens of each request (with the cache reads and the credits they saved). Parameters: `$1` user id, `$2` first local day, `$3` last
 * local day (dates, inclusive), `$4` APP_TIMEZONE. Local days are turned into timestamptz bounds
 * by PostgreSQL (DST-correct), so the range scan uses the (userId, createdAt) index.
 */
const CONSUMED = `consumed AS (
  SELECT (ct."createdAt" AT TIME ZONE $4)::date AS day, ct."modelId", ct."keyId", ct.amount,
    ct."promptTokens", ct."completionTokens", ct."cachedTokens", ct."cacheSavings"
  FROM credit_transactions ct
  WHERE ct."userId" = $1 AND ct.type = 'CONSUMPTION'
    AND ct."createdAt" >= ($2::date::timestamp AT TIME ZONE $4)
    AND ct."createdAt" < (($3::date + 1)::timestamp AT TIME ZONE $4)
)`;

const SUMS = `count(c.amount)::int AS requests,
  COALESCE(sum(c."promptTokens"), 0)::bigint AS "promptTokens",
  COALESCE(sum(c."completionTokens"), 0)::bigint AS "completionTokens",
  COALESCE(sum(c."cachedTokens"), 0)::bigint AS "cachedTokens",
  COALESCE(sum(c."cacheSavings"), 0)::bigint AS "cacheSavings",
  COALESCE(-sum(c.amount), 0)::bigint AS credits`;

/** One row per local day from `$2` to `$3`, days without use included with zeros. */
export const USAGE_BY_DAY_SQL = `WITH ${CONSUMED},
  days AS (SELECT d::date AS day FROM generate_series($2::date, $3::date, interval '1 day') AS d)
  SELECT to_char(days.day, 'YYYY-MM-DD') AS day, ${SUMS}
  FROM days LEFT JOIN consumed c ON c.day = days.day
  GROUP BY days.day ORDER BY days.day`;

/** One row per model used in the range (null: entries from before models were recorded). */
export const USAGE_BY_MODEL_SQL = `WITH ${CONSUMED}
  SELECT c."modelId", ${SUMS}
  FROM consumed c
  GROUP BY c."modelId" ORDER BY credits DESC, c."modelId" NULLS LAST`;

/** One row per API key used in the range (null: requests made with a session). */
export const USAGE_BY_KEY_SQL = `WITH ${CONSUMED}
  SELECT c."keyId", ${SUMS}
  FROM consumed c
  GROUP BY c."keyId" ORDER BY credits DESC, c."keyId" NULLS FIRST`;

/** One row when user $1 exists (the admin reading another user's usage). */
export const USER_EXISTS_SQL = 'SELECT 1 FROM users WHERE id = $1';
