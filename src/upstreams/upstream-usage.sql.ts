import { SqlParams, type SqlStatement } from '../database/sql-params';

// The statement of `upstream_usage`, beside UpstreamUsageMeter (its only reader and writer).

/** Requests and tokens of one upstream in one clock minute. */
export interface MinuteUsage {
  requests: number;
  tokens: number;
}

/** This process's usage not yet added to the table: one upstream in one minute. */
export interface PendingUsage extends MinuteUsage {
  upstreamId: string;
  /** Start of the clock minute. */
  minute: Date;
}

/** A row of `syncUsageSql`: an upstream's totals in the current minute, every instance's. */
export interface UsageRow {
  upstreamId: string;
  requests: number;
  /** bigint: pg answers it as text. */
  tokens: string | number;
}

/**
 * One statement that adds `pending` to the table and answers every upstream's totals in
 * `minute`, the rows just added included. Rows are added in one order (by upstream, then
 * minute), so concurrent instances lock them in the same order. `forgetBefore`: rows of minutes
 * before it are deleted too (given once a minute; null deletes nothing).
 */
export function syncUsageSql(
  pending: PendingUsage[],
  minute: Date,
  forgetBefore: Date | null,
): SqlStatement {
  const rows = [...pending].sort(
    (a, b) => a.upstreamId.localeCompare(b.upstreamId) || a.minute.getTime() - b.minute.getTime(),
  );
  const p = new SqlParams();
  const ids = p.add(rows.map((r) => r.upstreamId));
  const minutes = p.add(rows.map((r) => r.minute.toISOString()));
  const requests = p.add(rows.map((r) => r.requests));
  const tokens = p.add(rows.map((r) => r.tokens));
  const now = p.add(minute.toISOString());
  const before = p.add(forgetBefore?.toISOString() ?? null);
  const sql = `WITH added AS (
      INSERT INTO upstream_usage ("upstreamId", minute, requests, tokens)
      SELECT * FROM unnest(${ids}::varchar[], ${minutes}::timestamptz[], ${requests}::int[], ${tokens}::bigint[])
      ON CONFLICT ("upstreamId", minute) DO UPDATE
        SET requests = upstream_usage.requests + excluded.requests,
            tokens = upstream_usage.tokens + excluded.tokens
      RETURNING "upstreamId", minute, requests, tokens
    ), forgotten AS (
      DELETE FROM upstream_usage WHERE minute < ${before}::timestamptz
    )
    SELECT "upstreamId", requests, tokens FROM added WHERE minute = ${now}::timestamptz
    UNION ALL
    SELECT u."upstreamId", u.requests, u.tokens FROM upstream_usage u
     WHERE u.minute = ${now}::timestamptz
       AND NOT EXISTS (SELECT 1 FROM added a WHERE a."upstreamId" = u."upstreamId" AND a.minute = u.minute)`;
  return { sql, params: p.values };
}

/** Every upstream's totals in `minute` (the admin list), without adding anything. */
export function minuteTotalsSql(minute: Date): SqlStatement {
  const p = new SqlParams();
  return {
    sql: `SELECT "upstreamId", requests, tokens FROM upstream_usage WHERE minute = ${p.add(minute.toISOString())}::timestamptz`,
    params: p.values,
  };
}
