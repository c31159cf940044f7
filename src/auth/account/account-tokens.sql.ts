// Every statement on `account_tokens`, beside AccountTokens.

/**
 * Ends the unused tokens of user $1 for purpose $2, so that only the newest link of a purpose
 * works (run before ISSUE_TOKEN_SQL in the same transaction).
 */
export const SUPERSEDE_TOKENS_SQL = `UPDATE account_tokens SET "usedAt" = now()
         WHERE "userId" = $1 AND purpose = $2 AND "usedAt" IS NULL`;

/**
 * Stores a new token: $1 user, $2 purpose, $3 SHA-256 of the token (bytes; the token itself is
 * never stored), $4 change_email's new address or null, $5 lifetime in seconds.
 */
export const ISSUE_TOKEN_SQL = `INSERT INTO account_tokens ("userId", purpose, "tokenHash", "newEmail", "expiresAt")
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`;

/**
 * Uses up the token whose hash is $1 for purpose $2 and returns `{userId, newEmail}`, no row when
 * it is unknown, of another purpose, used, expired, or issued before its account's last
 * credential change (`users."credentialsChangedAt"`). One conditional UPDATE, so of two
 * concurrent uses only one gets the row.
 */
export const CONSUME_TOKEN_SQL = `UPDATE account_tokens t SET "usedAt" = now()
       FROM users u
       WHERE t."tokenHash" = $1 AND t.purpose = $2 AND t."usedAt" IS NULL AND t."expiresAt" > now()
         AND u.id = t."userId"
         AND (u."credentialsChangedAt" IS NULL OR t."createdAt" >= u."credentialsChangedAt")
       RETURNING t."userId", t."newEmail"`;

/** Ends every unused token of user $1, whatever its purpose; returns one row per token ended. */
export const REVOKE_USER_TOKENS_SQL = `UPDATE account_tokens SET "usedAt" = now() WHERE "userId" = $1 AND "usedAt" IS NULL
       RETURNING id`;

/**
 * Takes the transaction-scoped advisory lock of user $1's email change requests, so the daily
 * count and the new link are one decision.
 */
export const LOCK_EMAIL_CHANGES_SQL = `SELECT pg_advisory_xact_lock(hashtextextended('email_change:' || $1, 0))`;

/** `{n}`: change_email links issued for user $1 in the last 24 hours, used or not. */
export const EMAIL_CHANGES_TODAY_SQL = `SELECT count(*)::int AS n FROM account_tokens
       WHERE "userId" = $1 AND purpose = 'change_email' AND "createdAt" > now() - interval '24 hours'`;
