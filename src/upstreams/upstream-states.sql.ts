import { SqlParams, type SqlStatement } from '../database/sql-params';
import type { UpstreamHealth } from './upstream-health';

// The statements of `upstream_states`, beside UpstreamStateStore (the only writer).

/** Every upstream's health row (a few dozen rows at most: read whole, often). */
export const SELECT_ALL_STATES_SQL = `SELECT "upstreamId", state, "consecutiveFailures", "cooldownUntil", "cooldownMs", "lastError", "lastErrorAt" FROM upstream_states`;

/** Makes sure `upstreamId` has a row (healthy), so the next statement can lock it. */
export function ensureStateSql(upstreamId: string): SqlStatement {
  const p = new SqlParams();
  const sql = `INSERT INTO upstream_states ("upstreamId") VALUES (${p.add(upstreamId)}) ON CONFLICT ("upstreamId") DO NOTHING`;
  return { sql, params: p.values };
}

/**
 * The row of `upstreamId`, locked until the transaction ends: concurrent reports of every
 * instance are applied one after another, so consecutive failures add up across instances.
 */
export function lockStateSql(upstreamId: string): SqlStatement {
  const p = new SqlParams();
  const sql = `${SELECT_ALL_STATES_SQL} WHERE "upstreamId" = ${p.add(upstreamId)} FOR UPDATE`;
  return { sql, params: p.values };
}

/** Writes `h` as the health of `upstreamId` (its row exists: `ensureStateSql`). */
export function updateStateSql(upstreamId: string, h: UpstreamHealth): SqlStatement {
  const p = new SqlParams();
  const sql = `UPDATE upstream_states SET state = ${p.add(h.state)}, "consecutiveFailures" = ${p.add(h.consecutiveFailures)},
       "cooldownUntil" = ${p.add(h.cooldownUntil)}, "cooldownMs" = ${p.add(h.cooldownMs)},
       "lastError" = ${p.add(h.lastError ? JSON.stringify(h.lastError) : null)}, "lastErrorAt" = ${p.add(h.lastErrorAt)},
       "updatedAt" = now()
     WHERE "upstreamId" = ${p.add(upstreamId)}`;
  return { sql, params: p.values };
}

/** Forgets the health of `upstreamId` (deleted upstream, or an admin's change: healthy again). */
export function deleteStateSql(upstreamId: string): SqlStatement {
  const p = new SqlParams();
  return {
    sql: `DELETE FROM upstream_states WHERE "upstreamId" = ${p.add(upstreamId)}`,
    params: p.values,
  };
}

/** A row of SELECT_ALL_STATES_SQL. */
export interface StateRow {
  upstreamId: string;
  state: UpstreamHealth['state'];
  consecutiveFailures: number;
  cooldownUntil: Date | null;
  cooldownMs: number;
  lastError: UpstreamHealth['lastError'];
  lastErrorAt: Date | null;
}

/** The health held in `row`. */
export function healthOf(row: StateRow): UpstreamHealth {
  return {
    state: row.state,
    consecutiveFailures: row.consecutiveFailures,
    cooldownUntil: row.cooldownUntil,
    cooldownMs: row.cooldownMs,
    lastError: row.lastError,
    lastErrorAt: row.lastErrorAt,
  };
}
