// The statement the start-up summary reads the migrations with.

/**
 * One row `{name}`, the latest applied migration, from TypeORM's migrations table `table`
 * (written as a quoted identifier: a table name takes no parameter, so `table` is the data
 * source's own setting, never input); no row before the first migration.
 */
export const latestMigrationSql = (table: string): string =>
  `SELECT name FROM "${table}" ORDER BY id DESC LIMIT 1`;
