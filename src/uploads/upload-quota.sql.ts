// The raw statements of UploadQuotaService on `uploads`.

/**
 * Takes the transaction-scoped advisory lock of user $1's uploads: reservations of one user take
 * turns until commit, so two uploads cannot both fit in the same remaining quota.
 */
export const LOCK_USER_UPLOADS_SQL = `SELECT pg_advisory_xact_lock(hashtextextended('uploads:' || $1, 0))`;

/** `{used}`: bytes of user $1's stored uploads, as text (a bigint sum). */
export const USED_BYTES_SQL = `SELECT COALESCE(sum(size), 0)::text AS used FROM uploads WHERE "userId" = $1`;
