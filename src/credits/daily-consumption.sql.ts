import { SqlParams, type SqlStatement } from '../database/sql-params';
import type { LedgerColumns } from './credit-holds.types';

/**
 * The day counters of consumption, so the daily limits read one row instead of summing the day's
 * ledger:
 * - `daily_consumption ("userId", day, credits)`, primary key ("userId", day);
 * - `daily_key_consumption ("keyId", day, credits)`, primary key ("keyId", day).
 *
 * Invariant: `credits` = Σ |amount| of the CONSUMPTION entries of that user (key) whose
 * `createdAt` falls on local date `day` in APP_TIMEZONE. Only `record_consumption` (migration
 * SettlementRule) writes them, in the same statement as the CONSUMPTION entry, so entry and
 * counters commit together; the settlement and the collection of a debt call it too. The ledger
 * stays the truth: the counters can be rebuilt from it (migration DailyConsumption does so for the
 * recent days).
 */

/** A CONSUMPTION entry outside a settlement (`CreditsService.consume`), its columns by name. */
export interface ConsumptionEntry extends Partial<LedgerColumns> {
  userId: string;
  /** Credits consumed (integer ≥ 0; the entry's amount is its negative). */
  charged: number;
  /** At most 500 characters. */
  description: string;
  /** Unique when set: a reference is charged once. */
  reference?: string | null;
}

/**
 * Writes `entry` as a CONSUMPTION entry and adds it to the day counters of APP_TIMEZONE
 * `timezone`, in one statement (`record_consumption`). One row: `charged`.
 */
export function consumptionStatement(entry: ConsumptionEntry, timezone: string): SqlStatement {
  const { charged, ...columns } = entry;
  const p = new SqlParams();
  const row = JSON.stringify({ ...columns, amount: -charged });
  const sql = `SELECT record_consumption(p_entry => ${p.add(row)}::jsonb,
    p_tz => ${p.add(timezone)}::text) AS charged`;
  return { sql, params: p.values };
}
