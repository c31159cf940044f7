// The ledger statements of CreditsService (`users.credits` and `credit_transactions`); every
// balance change runs in one transaction with its ledger row.

/**
 * Writes a ledger entry once per reference: $1 user, $2 amount (credits, signed), $3 type,
 * $4 description, $5 reference. Returns its `id`, no row when the reference was recorded before
 * (the unique partial index makes a repeated grant a no-op).
 */
export const INSERT_ENTRY_ONCE_SQL = `INSERT INTO credit_transactions ("userId", amount, type, description, reference)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (reference) WHERE reference IS NOT NULL DO NOTHING
         RETURNING id`;

/** Writes a ledger entry: $1 user, $2 amount (credits, signed), $3 type, $4 description, $5 reference or null. */
export const INSERT_ENTRY_SQL = `INSERT INTO credit_transactions ("userId", amount, type, description, reference)
       VALUES ($1, $2, $3, $4, $5)`;

/**
 * Takes $2 credits from user $1 and returns the new `credits`; conditional on the balance, so
 * it never goes negative (no row when it is too low).
 */
export const DEBIT_SQL = `UPDATE users SET credits = credits - $2, "updatedAt" = now()
         WHERE id = $1 AND credits >= $2 RETURNING credits`;

/** Adds $2 credits (signed) to user $1's balance; returns its `id`, no row for an unknown user. */
export const ADD_TO_BALANCE_SQL = `UPDATE users SET credits = credits + $2, "updatedAt" = now() WHERE id = $1 RETURNING id`;

/** `{credits}` of user $1, the row locked until the transaction ends (no concurrent change). */
export const LOCK_BALANCE_SQL = 'SELECT credits FROM users WHERE id = $1 FOR UPDATE';

/** `{credits}` of user $1. */
export const BALANCE_SQL = 'SELECT credits FROM users WHERE id = $1';

/** One row when an entry was recorded under reference $1. */
export const REFERENCE_SEEN_SQL = 'SELECT 1 FROM credit_transactions WHERE reference = $1';

/**
 * `{total}`: Σ amount of user $1's entries whose reference matches LIKE pattern $2 (the caller
 * escapes `\`, `%` and `_` in the prefix and appends `%`).
 */
export const SUM_BY_REFERENCE_PREFIX_SQL = `SELECT COALESCE(SUM(amount), 0)::int AS total FROM credit_transactions
       WHERE "userId" = $1 AND reference LIKE $2`;

/** `{userId, teamId, amount, type}` of the entry recorded under reference $1. */
export const ENTRY_BY_REFERENCE_SQL =
  'SELECT "userId", "teamId", amount, type FROM credit_transactions WHERE reference = $1';
