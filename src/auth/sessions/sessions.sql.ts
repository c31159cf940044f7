// Every statement on `sessions` (migration Sessions), beside SessionsService.

/**
 * Opens a session and returns its `id`: $1 user, $2 the user's token version, $3 lifetime in
 * seconds (AUTH_SESSION_MAX_AGE), $4 user agent or null, $5 client address or null. The user's
 * expired rows go in the same statement, so the table holds only live and recently ended ones.
 */
export const OPEN_SESSION_SQL = `WITH purge AS (
     DELETE FROM sessions WHERE "userId" = $1 AND "expiresAt" < now()
   )
   INSERT INTO sessions ("userId", "tokenVersion", "expiresAt", "userAgent", ip)
   VALUES ($1, $2, now() + make_interval(secs => $3), $4, $5)
   RETURNING id`;

/** What a request needs of session $1: its user, whether it was revoked, when last seen (ms). */
export const FIND_SESSION_SQL = `SELECT "userId", "revokedAt" IS NOT NULL AS revoked,
     (extract(epoch FROM "lastSeenAt") * 1000)::float8 AS "lastSeenMs"
   FROM sessions WHERE id = $1`;

/**
 * Records that session $1 was used, at most once a minute whatever the number of processes:
 * the row is written only when its `lastSeenAt` is older. Does not notify (not a revocation).
 */
export const TOUCH_SESSION_SQL = `UPDATE sessions SET "lastSeenAt" = now()
   WHERE id = $1 AND "lastSeenAt" < now() - interval '1 minute'`;

/**
 * The sessions of user $1 that have not expired, newest first, at most $2. `superseded`: the
 * user's token version moved on since sign-in (password change or reset, two-factor on or off
 * or reset by an admin), which ended the session.
 */
export const LIST_SESSIONS_SQL = `SELECT s.id, s."createdAt", s."lastSeenAt", s."expiresAt",
     s."userAgent", s.ip, s."revokedAt", s."tokenVersion" <> u."tokenVersion" AS superseded
   FROM sessions s JOIN users u ON u.id = s."userId"
   WHERE s."userId" = $1 AND s."expiresAt" > now()
   ORDER BY s."createdAt" DESC, s.id
   LIMIT $2`;

/**
 * Ends session $1 of user $2 (an ended one keeps its first `revokedAt`); returns its id and
 * whether this call ended it (`ended`), or no row when user $2 has no such session. The trigger
 * notifies every process at commit.
 */
export const REVOKE_SESSION_SQL = `WITH before AS (
     SELECT id, "revokedAt" IS NULL AS live FROM sessions
     WHERE id = $1 AND "userId" = $2 FOR UPDATE
   )
   UPDATE sessions s SET "revokedAt" = COALESCE(s."revokedAt", now())
   FROM before WHERE s.id = before.id
   RETURNING s.id, before.live AS ended`;

/** Ends every live session of user $1 except $2 (null: all of them); returns their ids. */
export const REVOKE_OTHER_SESSIONS_SQL = `UPDATE sessions SET "revokedAt" = now()
   WHERE "userId" = $1 AND id IS DISTINCT FROM $2::uuid AND "revokedAt" IS NULL
     AND "expiresAt" > now()
   RETURNING id`;
