/**
 * SQL shared by the credit summary and the admission statement (spec Limits 3), so "today" is
 * computed in one place. Both take the same positional parameters: `$1` user id, `$2` now
 * (timestamptz, from the injectable Clock), `$3` APP_TIMEZONE. PostgreSQL does the calendar
 * (the local date, DST-correct local midnight).
 */

/** One row `day(today)`: the local date of `$2` in `$3`, the day the counters are kept by. */
export const DAY_CTE = `day AS (SELECT ($2::timestamptz AT TIME ZONE $3)::date AS today)`;

/**
 * Credits (integer ≥ 0) consumed by user `$1` on `day.today`: one row of the day counter
 * `daily_consumption` (kept by the statements that write CONSUMPTION entries, equal to the
 * ledger's Σ |CONSUMPTION| of that local day), so the cost does not grow with the day's requests.
 */
export const USED_TODAY = `COALESCE((SELECT dc.credits FROM daily_consumption dc, day
  WHERE dc."userId" = $1 AND dc.day = day.today), 0)`;

/** Credits (integer ≥ 0) reserved by user `$1`'s open holds. */
export const HELD = `(SELECT COALESCE(SUM(h.amount), 0)::int FROM credit_holds h WHERE h."userId" = $1)`;

/** Next local midnight after `$2` in `$3`, as timestamptz (the day added in local time: DST). */
export const RESETS_AT = `((date_trunc('day', $2::timestamptz AT TIME ZONE $3) + interval '1 day') AT TIME ZONE $3)`;

/**
 * The credit summary of user $1 (CreditsUsageService.summary): `{credits, plan, usedToday, held,
 * resetsAt}` with "today" as above ($2 now, $3 APP_TIMEZONE); no row for an unknown user.
 */
export const CREDIT_SUMMARY_SQL = `WITH ${DAY_CTE}
       SELECT u.credits, u.plan, ${USED_TODAY} AS "usedToday", ${HELD} AS held,
         ${RESETS_AT} AS "resetsAt"
       FROM users u WHERE u.id = $1`;
