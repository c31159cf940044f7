import { SqlParams, type SqlStatement } from '../database/sql-params';
import type { AdminUsageGroup } from './dto/admin-usage.dto';

/** What the admin usage statement reads: the range, the filters and the page. */
export interface AdminUsageFilter {
  groupBy: AdminUsageGroup;
  /** First and last local day (`YYYY-MM-DD`, inclusive) in `timezone` (APP_TIMEZONE). */
  from: string;
  to: string;
  timezone: string;
  userId?: string;
  teamId?: string;
  limit: number;
  offset: number;
}

const SUMS = `count(c.amount)::int AS requests,
  COALESCE(sum(c."promptTokens"), 0)::bigint AS "promptTokens",
  COALESCE(sum(c."completionTokens"), 0)::bigint AS "completionTokens",
  COALESCE(sum(c."cachedTokens"), 0)::bigint AS "cachedTokens",
  COALESCE(sum(c."cacheSavings"), 0)::bigint AS "cacheSavings",
  COALESCE(-sum(c.amount), 0)::bigint AS credits`;
const SUM_COLUMNS = `g.requests, g."promptTokens", g."completionTokens", g."cachedTokens",
  g."cacheSavings", g.credits`;
const BY_CREDITS = 'g.credits DESC, g.requests DESC, g.id NULLS LAST';

/**
 * The groups of one kind: `id` (typed), the sums, and how to label and order them. The team
 * grouping joins each entry to the teams its user belonged to when it was made (a member of
 * two teams counts in both; `$team` keeps only that team's row).
 */
function groupsOf(groupBy: AdminUsageGroup, team: string | null, days: string[]) {
  switch (groupBy) {
    case 'user':
      return {
        groups: `SELECT c."userId" AS id, ${SUMS} FROM consumed c GROUP BY c."userId"`,
        label: { join: 'LEFT JOIN users l ON l.id = g.id', column: 'l.email' },
        order: BY_CREDITS,
      };
    case 'team':
      return {
        groups: `SELECT tm."teamId" AS id, ${SUMS} FROM consumed c
          JOIN team_members tm ON tm."userId" = c."userId" AND tm."createdAt" <= c."createdAt"
          ${team ? `AND tm."teamId" = ${team}` : ''}
          GROUP BY tm."teamId"`,
        label: { join: 'LEFT JOIN teams l ON l.id = g.id', column: 'l.name' },
        order: BY_CREDITS,
      };
    case 'model':
      return {
        groups: `SELECT c."modelId" AS id, ${SUMS} FROM consumed c GROUP BY c."modelId"`,
        label: { join: '', column: 'g.id' },
        order: BY_CREDITS,
      };
    case 'key':
      return {
        groups: `SELECT c."keyId" AS id, ${SUMS} FROM consumed c GROUP BY c."keyId"`,
        label: { join: 'LEFT JOIN api_keys l ON l.id = g.id', column: 'l.name' },
        order: BY_CREDITS,
      };
    case 'day': {
      const [first, last] = days;
      return {
        groups: `SELECT to_char(d.day, 'YYYY-MM-DD') AS id, ${SUMS}
          FROM generate_series(${first}::date, ${last}::date, interval '1 day') AS d(day)
          LEFT JOIN consumed c ON c.day = d.day::date
          GROUP BY d.day`,
        label: { join: '', column: 'g.id' },
        order: 'g.id',
      };
    }
  }
}

/**
 * Consumption across users from the ledger's CONSUMPTION entries (which carry each request's
 * user, model, key and tokens), grouped by `filter.groupBy`, one page of groups. One statement,
 * one row: `groups` (how many in all), `totals` (JSON sums over every matching entry) and `rows`
 * (JSON array of the page, in order: `{id, label, requests, promptTokens, completionTokens,
 * cachedTokens, cacheSavings, credits}`).
 *
 * Placeholders are made with their values: the time zone, the two local days (turned into
 * timestamptz bounds by PostgreSQL, DST-correct), the optional user and team, the page size and
 * offset. The range scan uses the (userId, createdAt) index with a user, otherwise the partial
 * index on CONSUMPTION entries' createdAt (migration AdminUsage). A team filter keeps the
 * entries of its members made after they joined; labels read the users', teams' and keys' names
 * (a deleted one labels null).
 */
export function adminUsageSql(filter: AdminUsageFilter): SqlStatement {
  const p = new SqlParams();
  const tz = p.add(filter.timezone);
  const first = p.add(filter.from);
  const last = p.add(filter.to);
  const where = [
    `ct.type = 'CONSUMPTION'`,
    `ct."createdAt" >= (${first}::date::timestamp AT TIME ZONE ${tz})`,
    `ct."createdAt" < ((${last}::date + 1)::timestamp AT TIME ZONE ${tz})`,
  ];
  if (filter.userId) where.push(`ct."userId" = ${p.add(filter.userId)}::uuid`);
  const team = filter.teamId ? `${p.add(filter.teamId)}::uuid` : null;
  if (team)
    where.push(`EXISTS (SELECT 1 FROM team_members f WHERE f."teamId" = ${team}
      AND f."userId" = ct."userId" AND f."createdAt" <= ct."createdAt")`);
  const { groups, label, order } = groupsOf(filter.groupBy, team, [first, last]);
  const sql = `WITH consumed AS (
      SELECT ct."userId", ct."modelId", ct."keyId", ct."createdAt", ct.amount,
        (ct."createdAt" AT TIME ZONE ${tz})::date AS day,
        ct."promptTokens", ct."completionTokens", ct."cachedTokens", ct."cacheSavings"
      FROM credit_transactions ct
      WHERE ${where.join(' AND ')}
    ),
    grouped AS (${groups}),
    page AS (
      SELECT g.id::text AS id, ${label.column} AS label, ${SUM_COLUMNS},
        row_number() OVER (ORDER BY ${order}) AS n
      FROM grouped g ${label.join}
      ORDER BY n LIMIT ${p.add(filter.limit)} OFFSET ${p.add(filter.offset)}
    )
    SELECT (SELECT count(*) FROM grouped)::int AS groups,
      (SELECT row_to_json(t) FROM (SELECT ${SUMS} FROM consumed c) t) AS totals,
      COALESCE((SELECT json_agg(page ORDER BY page.n) FROM page), '[]'::json) AS rows`;
  return { sql, params: p.values };
}
