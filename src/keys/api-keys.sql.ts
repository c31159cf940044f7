// The raw statements on `api_keys`, beside ApiKeysService and ApiKeyStrategy.

/**
 * The candidate keys of public prefix $1 with their owner, in one round trip:
 * `{id, keyHash, scopes, expiresAt, lastUsedAt, teamId, userId, email, name, role, plan, locale}`. Revoked
 * keys are never candidates; the caller compares the hash and the expiry.
 */
export const KEY_SQL = `SELECT k.id, k."keyHash", k.scopes, k."expiresAt", k."lastUsedAt", k."teamId",
    u.id AS "userId", u.email, u.name, u.role, u.plan, u.preferences->>'locale' AS locale
  FROM api_keys k JOIN users u ON u.id = k."userId"
  WHERE k.prefix = $1 AND k."revokedAt" IS NULL`;

/** Records that key $1 was used at $2. */
export const TOUCH_KEY_SQL = 'UPDATE api_keys SET "lastUsedAt" = $2 WHERE id = $1';

/**
 * Takes the transaction-scoped advisory lock of user $1's keys: key creations of one user take
 * turns, so the count of active keys cannot be passed by two at once.
 */
export const LOCK_USER_KEYS_SQL = `SELECT pg_advisory_xact_lock(hashtextextended('api_keys:' || $1, 0))`;

/** `{n}`: user $1's active keys (neither revoked nor expired at $2). */
export const COUNT_ACTIVE_KEYS_SQL = `SELECT count(*)::int AS n FROM api_keys WHERE "userId" = $1 AND "revokedAt" IS NULL
           AND ("expiresAt" IS NULL OR "expiresAt" > $2)`;

/** `{verified}`: whether user $1 proved their address (only they may create keys). */
export const OWNER_VERIFIED_SQL = `SELECT "emailVerifiedAt" IS NOT NULL AS verified FROM users WHERE id = $1`;
