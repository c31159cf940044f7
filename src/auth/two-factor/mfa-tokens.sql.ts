// Every statement on `used_mfa_tokens`, beside MfaTokenService.

/** One row when mfaToken `jti` $1 was used already. */
export const MFA_TOKEN_USED_SQL = 'SELECT 1 FROM used_mfa_tokens WHERE jti = $1';

/**
 * Marks mfaToken $1 used until $2 (Unix seconds), in one atomic statement: no row back when it
 * was used already. Rows a day past their expiry go in the same statement (the margin covers a
 * Clock ahead of PostgreSQL's).
 */
export const CONSUME_MFA_TOKEN_SQL = `WITH purge AS (
     DELETE FROM used_mfa_tokens WHERE "expiresAt" < now() - interval '1 day'
   )
   INSERT INTO used_mfa_tokens (jti, "expiresAt") VALUES ($1, to_timestamp($2))
   ON CONFLICT (jti) DO NOTHING
   RETURNING jti`;

/** Gives mfaToken $1 back (its claim is undone): the code checked after the claim was wrong. */
export const RELEASE_MFA_TOKEN_SQL = 'DELETE FROM used_mfa_tokens WHERE jti = $1';
