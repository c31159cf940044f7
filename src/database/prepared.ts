import { createHash } from 'node:crypto';
import type { Pool, QueryResultRow } from 'pg';
import type { DataSource } from 'typeorm';

const names = new Map<string, string>();

/** A stable statement name per SQL text, so one text never gets two names nor a name two texts. */
function nameOf(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `p_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Runs `text` with `values` as a named prepared statement on the DataSource's node-postgres pool
 * and returns its rows (for INSERT/UPDATE/DELETE, those of RETURNING).
 *
 * For the statements of every metered request (session, admission, settlement, saving the
 * exchange): PostgreSQL parses and plans each of them once per pooled connection instead of on
 * every call (planning the admission statement took as long as running it), and the call skips
 * TypeORM's query wrapper. Errors are node-postgres' own (`code` = SQLSTATE), which the error
 * filter reads like TypeORM's. Not for statements inside a TypeORM transaction: this takes any
 * pooled connection.
 */
export async function preparedQuery<T extends QueryResultRow>(
  dataSource: DataSource,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  const result = await pool.query<T>({ name: nameOf(text), text, values });
  return result.rows;
}
