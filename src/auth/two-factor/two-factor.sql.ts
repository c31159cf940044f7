// The raw statements on `two_factor` and `recovery_codes`, beside the two-factor services.

/**
 * Stores $2 (the sealed secret) as user $1's pending secret, replacing an earlier pending one and
 * its last used step. Never touches an enabled row: no row back means 2FA is on.
 */
export const SETUP_SECRET_SQL = `INSERT INTO two_factor ("userId", secret) VALUES ($1, $2)
       ON CONFLICT ("userId") DO UPDATE
         SET secret = EXCLUDED.secret, "lastUsedStep" = NULL, "updatedAt" = now()
         WHERE two_factor."enabledAt" IS NULL
       RETURNING "userId"`;

/**
 * Turns user $1's pending secret on; conditional on it still being pending, so of two concurrent
 * confirmations one changes the row (affected count 1) and the other none.
 */
export const ENABLE_SQL = `UPDATE two_factor SET "enabledAt" = now(), "updatedAt" = now()
         WHERE "userId" = $1 AND "enabledAt" IS NULL RETURNING "userId"`;

/** `{n}`: user $1's unused recovery codes. */
export const RECOVERY_CODES_LEFT_SQL = `SELECT COUNT(*)::int AS n FROM recovery_codes WHERE "userId" = $1 AND "usedAt" IS NULL`;

/**
 * Records TOTP step $2 as user $1's last accepted one: conditional on the same secret $3 (a
 * concurrent setup may replace a pending one) and on a newer step, so two requests racing with
 * one code cannot both pass (affected count 1 for the winner only).
 */
export const USE_TOTP_STEP_SQL = `UPDATE two_factor SET "lastUsedStep" = $2
       WHERE "userId" = $1 AND secret = $3 AND ("lastUsedStep" IS NULL OR "lastUsedStep" < $2)
       RETURNING "userId"`;

/**
 * Uses up user $1's unused recovery code with keyed hash $2, only while 2FA is enabled; affected
 * count 1 when it did. Single use: a used code no longer matches.
 */
export const USE_RECOVERY_CODE_SQL = `UPDATE recovery_codes SET "usedAt" = now()
       WHERE "userId" = $1 AND "codeHash" = $2 AND "usedAt" IS NULL
         AND EXISTS (SELECT 1 FROM two_factor t WHERE t."userId" = $1 AND t."enabledAt" IS NOT NULL)
       RETURNING id`;
