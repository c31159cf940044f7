// The statements of a team's pool (`teams.credits` and its entries in `credit_transactions`,
// `teamId` set, `userId` null, the acting member in `memberId`). Each balance change runs in one
// transaction with its ledger entry: `teams.credits + Σ open holds of the team = Σ its entries`.

/**
 * Adds $2 credits (signed) to team $1's pool; returns its `credits`, no row for an unknown team.
 * The CHECK `credits ≥ 0` refuses a change below 0.
 */
export const ADD_TO_POOL_SQL = `UPDATE teams SET credits = credits + $2 WHERE id = $1 RETURNING credits`;

/** `{credits}` of team $1's pool, the row locked until the transaction ends; no row for no team. */
export const LOCK_POOL_SQL = 'SELECT credits FROM teams WHERE id = $1 FOR NO KEY UPDATE';

/**
 * `{total}`: Σ amount of team $1's entries whose reference matches LIKE pattern $2 (the caller
 * escapes the prefix and appends `%`, `likePrefix`).
 */
export const SUM_POOL_BY_REFERENCE_PREFIX_SQL = `SELECT COALESCE(SUM(amount), 0)::int AS total
       FROM credit_transactions WHERE "teamId" = $1 AND reference LIKE $2`;

/**
 * Writes a pool's entry once per reference: $1 team, $2 member (or null), $3 amount (credits,
 * signed), $4 type, $5 description, $6 reference. Returns its `id`; no row when the reference was
 * recorded before (the unique partial index makes a repeated grant a no-op).
 */
export const INSERT_POOL_ENTRY_ONCE_SQL = `INSERT INTO credit_transactions
         ("teamId", "memberId", amount, type, description, reference)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (reference) WHERE reference IS NOT NULL DO NOTHING
         RETURNING id`;

/**
 * The two entries of a transfer (type TRANSFER) from user $1's own balance to team $2's pool of
 * $3 credits: the user's (-$3, reference $4, description $6) and the pool's (+$3, the user as its
 * member, reference $5, description $7). Run in the transaction that moves the balances.
 */
export const INSERT_TRANSFER_ENTRIES_SQL = `INSERT INTO credit_transactions
         ("userId", "teamId", "memberId", amount, type, description, reference)
       VALUES ($1, NULL, NULL, -$3::int, 'TRANSFER', $6, $4),
              (NULL, $2, $1, $3::int, 'TRANSFER', $7, $5)`;

/** `{credits, held}` of team $1's pool: its balance and Σ its open holds; no row for no team. */
export const POOL_BALANCE_SQL = `SELECT t.credits,
         (SELECT COALESCE(SUM(h.amount), 0)::int FROM credit_holds h WHERE h."teamId" = t.id) AS held
       FROM teams t WHERE t.id = $1`;

/**
 * Per member of team $1 since $2: `memberId`, `spent` (credits of the pool's CONSUMPTION
 * entries), `calls` (their number) and `funded` (credits the member put in: transfers and
 * purchases); one row per member with any entry, $3 a member's id or null for all.
 */
export const POOL_USAGE_SQL = `SELECT "memberId",
         COALESCE(-SUM(amount) FILTER (WHERE type = 'CONSUMPTION'), 0)::int AS spent,
         COUNT(*) FILTER (WHERE type = 'CONSUMPTION')::int AS calls,
         COALESCE(SUM(amount) FILTER (WHERE type IN ('TRANSFER', 'PURCHASE')), 0)::int AS funded
       FROM credit_transactions
       WHERE "teamId" = $1 AND "createdAt" >= $2 AND "memberId" IS NOT NULL
         AND ($3::uuid IS NULL OR "memberId" = $3)
       GROUP BY "memberId"`;
