/**
 * Statements of the `responses` table (stored `/v1/responses` answers, migration Responses).
 * Every read names the caller: a response is only ever its author's.
 */

/**
 * Stores one response. $1 id (`resp_…`), $2 user id, $3 chat id (the chat the exchange was
 * saved to), $4 the `response` object (jsonb), $5 the conversation's items (jsonb array).
 */
export const INSERT_RESPONSE_SQL = `INSERT INTO responses (id, "userId", "chatId", body, context)
  VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)`;

/**
 * One response of the caller: $1 id, $2 user id. No row for an unknown id or another user's
 * (both answer 404).
 */
export const RESPONSE_OF_USER_SQL = `SELECT body, context, "chatId" FROM responses
  WHERE id = $1 AND "userId" = $2`;

/** Deletes one response of the caller: $1 id, $2 user id. No row for an unknown id or another user's. */
export const DELETE_RESPONSE_OF_USER_SQL = `DELETE FROM responses
  WHERE id = $1 AND "userId" = $2 RETURNING id`;
