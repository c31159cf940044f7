import type { EntityManager } from 'typeorm';

/**
 * Rows of an INSERT/UPDATE/DELETE … RETURNING. TypeORM answers UPDATE and DELETE with
 * `[rows, affectedCount]` but INSERT with `rows`; this reads both the same way.
 */
export async function returning<T>(m: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const result: unknown = await m.query(sql, params);
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as T[];
  }
  return result as T[];
}

/** A LIKE pattern matching every text that starts with `prefix` (`\\`, `%` and `_` escaped). */
export const likePrefix = (prefix: string): string =>
  `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
