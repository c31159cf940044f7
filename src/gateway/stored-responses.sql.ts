/**
 * Statements of the `responses` table (stored `/v1/responses` answers, migration Responses).
 * Every read names the caller: a response is only ever its author's.
 */

import { SqlParams } from '../database/sql-params';
import type { StatementPart } from '../database/statement-part';

/**
 * Stores one response as a CTE of the settlement statement of its call (see RecordPart), its
 * placeholders numbered from `$first`: the row names the chat `chatId` (an SQL expression, the
 * saved exchange's chat) and is written only when that chat exists. `body` and `context` are
 * JSON texts.
 */
export function insertResponsePart(
  row: { id: string; userId: string; body: string; context: string },
  first: number,
  chatId: string,
): StatementPart {
  const p = new SqlParams(first - 1);
  return {
    ctes: `stored_response AS (
       INSERT INTO responses (id, "userId", "chatId", body, context)
       SELECT ${p.add(row.id)}, ${p.add(row.userId)}::uuid, saved.id,
         ${p.add(row.body)}::jsonb, ${p.add(row.context)}::jsonb
       FROM (SELECT ${chatId} AS id) saved WHERE saved.id IS NOT NULL)`,
    params: p.values,
    result: 'NULL',
  };
}

/**
 * Corrects the `cost` of stored response $1 of user $2 to $3 credits: the settlement charged
 * less than the price the row was written with (a balance that did not cover the overrun).
 */
export const RESPONSE_COST_SQL = `UPDATE responses SET body = jsonb_set(body, '{cost}', to_jsonb($3::int))
  WHERE id = $1 AND "userId" = $2`;

/**
 * One response of the caller: $1 id, $2 user id. No row for an unknown id or another user's
 * (both answer 404).
 */
export const RESPONSE_OF_USER_SQL = `SELECT body, context, "chatId" FROM responses
  WHERE id = $1 AND "userId" = $2`;

/** Deletes one response of the caller: $1 id, $2 user id. No row for an unknown id or another user's. */
export const DELETE_RESPONSE_OF_USER_SQL = `DELETE FROM responses
  WHERE id = $1 AND "userId" = $2 RETURNING id`;
