// The raw statements of SearchIndexerService: index pauses, the per-chat lock, payer balances.

/**
 * Resumes the pauses of every payer whose balance is positive again: deletes them and returns
 * `{chatId}` per pause (TypeORM answers `[rows, count]`).
 */
export const RESUME_PAUSES_SQL = `DELETE FROM search_index_pauses p USING users u
       WHERE u.id = p."userId" AND u.credits > 0
       RETURNING p."chatId"`;

/**
 * `{locked}`: takes the session-level advisory lock ($1 namespace, $2 chat id) without waiting,
 * so one worker at a time indexes a chat. Released by UNLOCK_CHAT_SQL on the same connection.
 */
export const TRY_LOCK_CHAT_SQL = 'SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked';

/** Releases the lock TRY_LOCK_CHAT_SQL took ($1 namespace, $2 chat id). */
export const UNLOCK_CHAT_SQL = 'SELECT pg_advisory_unlock($1, hashtext($2))';

/** `{id, credits}` of the users $1 (uuid[]). */
export const BALANCES_SQL = 'SELECT id, credits FROM users WHERE id = ANY($1::uuid[])';

/**
 * `{id}` of each payer of $1 (uuid[]) whose budgets refuse a charge of $2 (int[], credits, in the
 * order of $1) at $3: some window of a budget that applies to the user would pass its limit, as
 * admission checks it (`budgets_admit`, which locks the payer's budgets until the transaction
 * ends, so a check inside the charge's transaction holds until its counters are written).
 */
export const BUDGET_REFUSED_SQL = `SELECT p.id FROM unnest($1::uuid[], $2::int[]) AS p(id, amount)
       WHERE budgets_admit(jsonb_build_object('userId', p.id, 'amount', p.amount), $3) IS NOT NULL`;

/** Pauses indexing chat $2 for each user of $1 (uuid[]); a pause already there stays. */
export const PAUSE_SQL = `INSERT INTO search_index_pauses ("userId", "chatId")
       SELECT u, $2 FROM unnest($1::uuid[]) AS u ON CONFLICT DO NOTHING`;
