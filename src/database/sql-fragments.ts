/**
 * `column` as ISO 8601 text in UTC with milliseconds, exactly as `Date.prototype.toISOString`
 * writes it, for rows PostgreSQL builds as JSON.
 */
export const isoTimestamp = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
