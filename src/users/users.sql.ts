// The raw statements on `users` and `accounts`, beside UsersService and UserAddresses.

/**
 * `SessionRow` of user $1: what every authenticated request needs (`id, email, name, role,
 * tokenVersion, plan, locale, preferences`), in one primary-key lookup.
 */
export const SESSION_USER_SQL = `SELECT id, email, name, role, "tokenVersion", plan, preferences->>'locale' AS locale, preferences
         FROM users WHERE id = $1`;

/** Raises user $1's token version by one, which ends every session token issued before. */
export const BUMP_TOKEN_VERSION_SQL = `UPDATE users SET "tokenVersion" = "tokenVersion" + 1, "updatedAt" = now() WHERE id = $1`;

/**
 * Links identity $3 of provider $2 to user $1; an identity already linked (to anyone) is left as
 * it is, so one identity never opens two accounts.
 */
export const LINK_ACCOUNT_SQL = `INSERT INTO accounts ("userId", provider, "providerAccountId") VALUES ($1, $2, $3)
       ON CONFLICT ON CONSTRAINT "UQ_accounts_provider_account" DO NOTHING`;

/**
 * Stores payment customer id $2 for user $1 unless they have one: the first stored id stays, so
 * two concurrent checkouts agree on one customer.
 */
export const SET_PAYMENT_CUSTOMER_SQL = `UPDATE users SET "paymentCustomerId" = $2, "updatedAt" = now()
       WHERE id = $1 AND "paymentCustomerId" IS NULL`;

/**
 * Marks user $1's address verified, and makes them ADMIN when it is one of $2 (ADMIN_EMAILS,
 * text[]); returns `id`, no row when it was verified already (conditional, so verification
 * happens once).
 */
export const VERIFY_EMAIL_SQL = `UPDATE users SET "emailVerifiedAt" = now(), "updatedAt" = now(),
         role = CASE WHEN email = ANY($2::text[]) THEN 'ADMIN' ELSE role END
       WHERE id = $1 AND "emailVerifiedAt" IS NULL RETURNING id`;

/** Moves user $1 to address $2 (lower-cased by the caller); the unique index refuses a taken one. */
export const SET_EMAIL_SQL = `UPDATE users SET email = $2, "updatedAt" = now() WHERE id = $1`;

/**
 * Records that user $1's credentials changed now (`credentialsChangedAt`): every mailed link
 * issued before this moment is refused from here on (see CONSUME_TOKEN_SQL).
 */
export const MARK_CREDENTIALS_CHANGED_SQL = `UPDATE users SET "credentialsChangedAt" = now(), "updatedAt" = now() WHERE id = $1`;

/** Clears user $1's preference panel (`preferences` back to null: every default). */
export const CLEAR_PREFERENCES_SQL = `UPDATE users SET preferences = NULL, "updatedAt" = now() WHERE id = $1`;

/** Sets user $1's role to $2 (the role ADMIN_EMAILS decides after an email move). */
export const SET_ROLE_SQL = `UPDATE users SET role = $2, "updatedAt" = now() WHERE id = $1`;
