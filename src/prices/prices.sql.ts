import { SqlParams, type SqlStatement } from '../database/sql-params';
import type { KindPrices } from './price-kinds';

// The statements of the price catalogue (`price_versions`, `price_changes`, `price_source_gaps`).
// `price_versions` is append-only (a trigger refuses UPDATE and DELETE): a change is a new row.

/** Every price version, oldest first per model: the whole history (one row per change). */
export const LIST_VERSIONS_SQL = `SELECT id, "modelId", "effectiveAt", prices, source, "changeId"
  FROM price_versions ORDER BY "modelId", "effectiveAt", "createdAt"`;

/** A new version of `modelId`'s prices, in force from `effectiveAt`. Returns the row. */
export function insertVersionSql(v: {
  modelId: string;
  effectiveAt: Date;
  prices: KindPrices;
  source: 'sync' | 'admin';
  changeId?: string;
}): SqlStatement {
  const p = new SqlParams();
  const sql = `INSERT INTO price_versions ("modelId", "effectiveAt", prices, source, "changeId")
    VALUES (${p.add(v.modelId)}, ${p.add(v.effectiveAt)}, ${p.add(JSON.stringify(v.prices))}::jsonb,
      ${p.add(v.source)}, ${p.add(v.changeId ?? null)})
    RETURNING id, "modelId", "effectiveAt", prices, source, "changeId"`;
  return { sql, params: p.values };
}

/**
 * Holds an increase for an admin: the model's PENDING change, replaced by this one when there is
 * one already (the source's latest prices are what an admin decides on). Returns the row.
 */
export function holdChangeSql(c: {
  modelId: string;
  prices: KindPrices;
  previous: KindPrices;
  increasePercent: string;
}): SqlStatement {
  const p = new SqlParams();
  const sql = `INSERT INTO price_changes ("modelId", prices, previous, "increasePercent")
    VALUES (${p.add(c.modelId)}, ${p.add(JSON.stringify(c.prices))}::jsonb,
      ${p.add(JSON.stringify(c.previous))}::jsonb, ${p.add(c.increasePercent)})
    ON CONFLICT ("modelId") WHERE status = 'PENDING' DO UPDATE
      SET prices = EXCLUDED.prices, previous = EXCLUDED.previous,
        "increasePercent" = EXCLUDED."increasePercent", "createdAt" = clock_timestamp()
      WHERE price_changes.prices IS DISTINCT FROM EXCLUDED.prices
    RETURNING ${CHANGE_COLUMNS}`;
  return { sql, params: p.values };
}

const CHANGE_COLUMNS = `id, "modelId", prices, previous, "increasePercent"::text AS "increasePercent",
  status, "createdAt", "decidedAt", "decidedBy"`;

/** The model's PENDING change ($1) marked SUPERSEDED: a later price applied without it. */
export const SUPERSEDE_PENDING_SQL = `UPDATE price_changes SET status = 'SUPERSEDED',
  "decidedAt" = clock_timestamp() WHERE "modelId" = $1 AND status = 'PENDING'`;

/** Changes with status $1 (NULL: all), newest first, at most $2. */
export const LIST_CHANGES_SQL = `SELECT ${CHANGE_COLUMNS} FROM price_changes
  WHERE $1::varchar IS NULL OR status = $1 ORDER BY "createdAt" DESC, id DESC LIMIT $2`;

/**
 * Decides the PENDING change $1: status $2 (APPROVED or REJECTED) by admin $3. Returns the row,
 * none when it is not pending (decided already, superseded, or unknown). Locks it meanwhile.
 */
export const DECIDE_CHANGE_SQL = `UPDATE price_changes SET status = $2, "decidedAt" = clock_timestamp(),
  "decidedBy" = $3 WHERE id = $1 AND status = 'PENDING' RETURNING ${CHANGE_COLUMNS}`;

/** Flags models ($1, text[]) that left the source; returns those newly flagged. */
export const FLAG_GAPS_SQL = `INSERT INTO price_source_gaps ("modelId") SELECT unnest($1::text[])
  ON CONFLICT ("modelId") DO NOTHING RETURNING "modelId"`;

/** Clears the flags of models ($1, text[]) that are in the source again. */
export const CLEAR_GAPS_SQL = `DELETE FROM price_source_gaps WHERE "modelId" = ANY($1::text[])`;

/** Every flagged model, with the time it left the source. */
export const LIST_GAPS_SQL = `SELECT "modelId", "missingSince" FROM price_source_gaps ORDER BY "modelId"`;
