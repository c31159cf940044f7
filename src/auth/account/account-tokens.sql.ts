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
 * it is unknown, of another purpose, used or expired. One conditional UPDATE, so of two
 * concurrent uses only one gets the row.
 */
export const CONSUME_TOKEN_SQL = `UPDATE account_tokens SET "usedAt" = now()
       WHERE "tokenHash" = $1 AND purpose = $2 AND "usedAt" IS NULL AND "expiresAt" > now()
       RETURNING "userId", "newEmail"`;

/** Ends every unused token of user $1, whatever its purpose. */
export const REVOKE_USER_TOKENS_SQL = `UPDATE account_tokens SET "usedAt" = now() WHERE "userId" = $1 AND "usedAt" IS NULL`;
