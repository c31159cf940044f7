import { SqlParams, type SqlStatement } from '../database/sql-params';
import type { BudgetScope, BudgetWindow } from './budget.types';

// Statements of the budgets tables (migration Budgets): `budgets`, `budget_windows`,
// `budget_counters` (written only by the admission and settlement functions) and `budget_alerts`.

/** A budget's columns, with its windows as a JSON list ordered hours, day, week, month, total. */
const BUDGET_COLUMNS = `b.id, b.scope, b."userId", b."teamId", b."keyId", b.timezone,
  b.thresholds::int[] AS thresholds, b."createdAt", b."updatedAt",
  COALESCE((SELECT jsonb_agg(jsonb_build_object('window', w.kind, 'hours', w.hours,
      'limit', w."limit") ORDER BY array_position(ARRAY['hours','day','week','month','total'],
      w.kind::text), w.hours)
    FROM budget_windows w WHERE w."budgetId" = b.id), '[]'::jsonb) AS windows`;

/** The partial unique index of each scope, as ON CONFLICT names it. */
const CONFLICT_TARGET: Record<BudgetScope, string> = {
  user: `("userId") WHERE scope = 'user'`,
  team: `("teamId") WHERE scope = 'team'`,
  member: `("teamId", "userId") WHERE scope = 'member'`,
  key: `("keyId") WHERE scope = 'key'`,
};

/** What `setBudgetStatement` writes. */
export interface BudgetInput {
  scope: BudgetScope;
  userId: string | null;
  teamId: string | null;
  keyId: string | null;
  timezone: string;
  thresholds: number[];
  windows: BudgetWindow[];
}

/**
 * Creates the budget of `input`'s scope and owner, or replaces its time zone, thresholds and
 * windows, in one statement: windows kept by (kind, hours) keep their counters (an `hours`
 * window its open session); windows left out are deleted with their counters. One row: `id`.
 */
export function setBudgetStatement(input: BudgetInput): SqlStatement {
  const p = new SqlParams();
  const windows = p.add(
    JSON.stringify(input.windows.map((w) => ({ kind: w.window, hours: w.hours, lim: w.limit }))),
  );
  const sql = `WITH b AS (
      INSERT INTO budgets (scope, "userId", "teamId", "keyId", timezone, thresholds)
      VALUES (${p.add(input.scope)}, ${p.add(input.userId)}::uuid, ${p.add(input.teamId)}::uuid,
        ${p.add(input.keyId)}::uuid, ${p.add(input.timezone)}, ${p.add(input.thresholds)}::smallint[])
      ON CONFLICT ${CONFLICT_TARGET[input.scope]}
      DO UPDATE SET timezone = EXCLUDED.timezone, thresholds = EXCLUDED.thresholds,
        "updatedAt" = now()
      RETURNING id),
    x AS (SELECT * FROM jsonb_to_recordset(${windows}::jsonb) AS x(kind text, hours int, lim int)),
    gone AS (DELETE FROM budget_windows w USING b WHERE w."budgetId" = b.id AND NOT EXISTS
      (SELECT 1 FROM x WHERE x.kind = w.kind AND COALESCE(x.hours, 0) = COALESCE(w.hours, 0))),
    up AS (INSERT INTO budget_windows ("budgetId", kind, hours, "limit")
      SELECT b.id, x.kind, x.hours, x.lim FROM b, x
      ON CONFLICT ("budgetId", kind, (COALESCE(hours, 0)))
      DO UPDATE SET "limit" = EXCLUDED."limit")
    SELECT id FROM b`;
  return { sql, params: p.values };
}

/** One budget by id ($1), with its windows; no row when unknown. */
export const BUDGET_BY_ID_SQL = `SELECT ${BUDGET_COLUMNS} FROM budgets b WHERE b.id = $1`;

/**
 * The budgets of user $1 (scope user, and member budgets of them), of keys $2 (uuid[]) and of
 * teams $3 (uuid[]: team budgets and every member budget of those teams), oldest first.
 */
export const VISIBLE_BUDGETS_SQL = `SELECT ${BUDGET_COLUMNS} FROM budgets b
  WHERE (b."userId" = $1 AND b.scope IN ('user', 'member'))
    OR (b.scope = 'key' AND b."keyId" = ANY($2::uuid[]))
    OR (b.scope IN ('team', 'member') AND b."teamId" = ANY($3::uuid[]))
  ORDER BY b."createdAt", b.id`;

/** Deletes budget $1 (its windows, counters and alerts cascade). */
export const DELETE_BUDGET_SQL = `DELETE FROM budgets WHERE id = $1`;

/** 1 row when $1 is a time zone PostgreSQL knows (the windows are computed there). */
export const KNOWN_TIMEZONE_SQL = `SELECT 1 FROM pg_timezone_names WHERE name = $1`;

/** The state of one window, from `budget_peek` (no writes) and `budget_held`, at $now. */
const windowState = (now: string) => `SELECT b.id AS "budgetId", b.scope,
    COALESCE(b."keyId", CASE WHEN b.scope = 'team' THEN b."teamId" END, b."userId") AS "scopeId",
    b."teamId", w.kind AS window, w.hours, w."limit", s.r_used AS used,
    budget_held(b.scope, b."userId", b."teamId", b."keyId") AS held,
    NULLIF(s.r_start, '-infinity'::timestamptz) AS start,
    NULLIF(s.r_end, 'infinity'::timestamptz) AS "resetsAt"
  FROM budgets b JOIN budget_windows w ON w."budgetId" = b.id,
    LATERAL budget_peek(w.id, ${now}::timestamptz) s`;

/** Window order: key, member, team, user; then hours, day, week, month, total. */
const WINDOW_ORDER = `ORDER BY array_position(ARRAY['key','member','team','user'], b.scope::text),
  b.id, array_position(ARRAY['hours','day','week','month','total'], w.kind::text), w.hours`;

/**
 * Every window that applies to user $2's own calls at $1: their user budget, and for each team
 * in $3 (uuid[]) the team's budget and their member budget there.
 */
export const CALLER_WINDOWS_SQL = `${windowState('$1')}
  WHERE (b.scope = 'user' AND b."userId" = $2)
    OR (b.scope = 'team' AND b."teamId" = ANY($3::uuid[]))
    OR (b.scope = 'member' AND b."userId" = $2 AND b."teamId" = ANY($3::uuid[]))
  ${WINDOW_ORDER}`;

/** Every window of key $2's budget at $1, then of its user $3's budget. */
export const KEY_WINDOWS_SQL = `${windowState('$1')}
  WHERE (b.scope = 'key' AND b."keyId" = $2) OR (b.scope = 'user' AND b."userId" = $3)
  ${WINDOW_ORDER}`;

/**
 * Windows at $1 whose used + held is at least $2 (a ratio, e.g. 0.8) of their limit, fullest
 * first, at most $3: the admins' list of who is near a limit.
 */
export const NEAR_LIMIT_SQL = `SELECT * FROM (${windowState('$1')}) n
  WHERE n."limit" = 0 OR (n.used + n.held)::numeric / n."limit" >= $2
  ORDER BY CASE WHEN n."limit" = 0 THEN 1 ELSE (n.used + n.held)::numeric / n."limit" END DESC
  LIMIT $3`;

/**
 * Credits key $1 consumed (Σ |CONSUMPTION|): in total, and in the local day, week and month
 * ($3, a time zone) containing $2.
 */
export const KEY_USAGE_SQL = `SELECT
    budget_ledger_sum('key', NULL, NULL, $1, '-infinity', 'infinity') AS total,
    budget_ledger_sum('key', NULL, NULL, $1, budget_window_start('day', $3, $2),
      budget_window_end('day', $3, budget_window_start('day', $3, $2), NULL)) AS day,
    budget_ledger_sum('key', NULL, NULL, $1, budget_window_start('week', $3, $2),
      budget_window_end('week', $3, budget_window_start('week', $3, $2), NULL)) AS week,
    budget_ledger_sum('key', NULL, NULL, $1, budget_window_start('month', $3, $2),
      budget_window_end('month', $3, budget_window_start('month', $3, $2), NULL)) AS month`;
