// The statements that create the development database on the embedded PostgreSQL server.

/** One row when a database named $1 exists. */
export const DATABASE_EXISTS_SQL = 'SELECT 1 FROM pg_database WHERE datname = $1';

/**
 * Creates database `name`, written as a quoted identifier: CREATE DATABASE takes no parameter,
 * so `name` must be a fixed name of ours (the development database), never input.
 */
export const createDatabaseSql = (name: string): string => `CREATE DATABASE "${name}"`;
