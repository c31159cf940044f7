import { SqlParams, type SqlStatement } from '../database/sql-params';
import type { StatementPart } from '../database/statement-part';
import type { AdmissionInput, SettlementInput } from './credit-holds.types';
import { DAILY_LIMITS, DEFAULT_DAILY_LIMIT } from './pricing';

// The admission and the settlement of metered calls. Their rules live in PostgreSQL only
// (`admit_holds`/`admit_hold`, migration AdmissionRule; `settle_holds`/`settle_hold` and
// `record_consumption`, migration SettlementRule). These statements hand them a batch of rows as
// one JSON array of objects, read there by name, and the settings as named arguments. A single
// request is a batch of one through the same statement text.

/** Spec Limits 3 by plan, as `admit_hold` reads them (`p_limits ->> plan`). */
const DAILY_LIMITS_JSON = JSON.stringify(DAILY_LIMITS);

/** What the admission reads besides the rows. */
export interface AdmissionSettings {
  /** APP_TIMEZONE: the zone of "today". */
  timezone: string;
  /** Seconds before an open hold expires (HOLD_TTL_SECONDS). */
  holdTtlSeconds: number;
}

/**
 * Admits `rows` in order (`admit_holds`). One answer row per request: `ord` (1-based), `found`
 * (false: no such user), `balance`, `used` (today's day counter), `held` (open holds),
 * `dailyLimit`, `resetsAt`, `keyAdmits` (false: the key's own limit refused), `budget` (the budget window that
 * refused, or null), `owed` (what the
 * user still owes after the row; more than 0 refused it), `id` (the new hold, null when
 * refused), or `errorCode` (SQLSTATE) and `errorMessage` when that row failed (undone; the others
 * commit). A batch of one raises its error as the statement's own.
 */
export function admitStatement(
  rows: readonly AdmissionInput[],
  settings: AdmissionSettings,
): SqlStatement {
  const p = new SqlParams();
  const sql = `SELECT r_ord AS ord, r_found AS found, r_balance AS balance, r_used AS used,
       r_held AS held, r_daily_limit AS "dailyLimit", r_resets_at AS "resetsAt",
       r_key_admits AS "keyAdmits", r_owed AS owed, r_hold AS id, r_error_code AS "errorCode",
       r_error_message AS "errorMessage", r_budget AS budget
     FROM admit_holds(p_rows => ${p.add(JSON.stringify(rows))}::jsonb,
       p_tz => ${p.add(settings.timezone)}::text, p_limits => ${p.add(DAILY_LIMITS_JSON)}::jsonb,
       p_default_limit => ${p.add(DEFAULT_DAILY_LIMIT)}::int,
       p_ttl => ${p.add(settings.holdTtlSeconds)}::int)`;
  return { sql, params: p.values };
}

/** The answer columns of `settle_holds`, from the relation `settled`. */
const SETTLED = `settled.r_ord AS ord, settled.r_charged AS charged,
  settled.r_shortfall AS shortfall, settled.r_error_code AS "errorCode",
  settled.r_error_message AS "errorMessage"`;

/** `settle_holds(…) AS settled` over `rows`, its values added to `p`. */
function settleCall(p: SqlParams, rows: readonly SettlementInput[], timezone: string): string {
  return `settle_holds(p_rows => ${p.add(JSON.stringify(rows))}::jsonb,
    p_tz => ${p.add(timezone)}::text) AS settled`;
}

/**
 * Settles `rows` in order (`settle_holds`; `timezone`: APP_TIMEZONE, the day counters' zone).
 * One answer row per request: `ord`, `charged` (credits consumed), `shortfall` (credits of the
 * cost neither hold nor balance covered, now owed; 0 normally), or `errorCode` and
 * `errorMessage` when that row failed (undone; the others commit). A batch of one raises its
 * error as the statement's own.
 */
export function settleStatement(rows: readonly SettlementInput[], timezone: string): SqlStatement {
  const p = new SqlParams();
  return { sql: `SELECT ${SETTLED} FROM ${settleCall(p, rows, timezone)}`, params: p.values };
}

/**
 * One settlement (`settle_holds`, a batch of one) and another module's statement part in one
 * statement (one round trip, one commit): the part is built for the placeholders after the
 * settlement's own. One row: the settlement's columns as in `settleStatement`, and `partResult`,
 * the part's result expression. Should the settlement fail, the whole statement fails.
 */
export function settleWithPartStatement(
  row: SettlementInput,
  timezone: string,
  part: (first: number) => StatementPart<unknown>,
): SqlStatement {
  const p = new SqlParams();
  const call = settleCall(p, [row], timezone);
  const built = part(p.values.length + 1);
  const sql = `WITH settled AS (SELECT * FROM ${call}), ${built.ctes}
    SELECT ${SETTLED}, ${built.result} AS "partResult" FROM settled`;
  return { sql, params: [...p.values, ...built.params] };
}
