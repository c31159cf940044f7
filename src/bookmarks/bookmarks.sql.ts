import { isoTimestamp as iso } from '../database/sql-fragments';
import type { CursorPosition } from '../common/pagination/pagination';
import { SqlParams, type SqlStatement } from '../database/sql-params';

// Every statement on `bookmarks`, beside BookmarksService.

/**
 * `BookmarkDto` rows: bookmarks of user `userId` whose chat that user can read now: their own,
 * or shared with one of the teams `teamIds`. A bookmark on a team chat is hidden while access is
 * lost and shows again when it returns. `only`: the page after `cursor` (keyset on createdAt,
 * id), or bookmark `id` alone. Newest first, at most `limit` rows.
 */
export function visibleBookmarksSql(
  userId: string,
  teamIds: string[],
  only: { cursor?: CursorPosition; id?: string },
  limit: number,
): SqlStatement {
  const p = new SqlParams();
  const user = p.add(userId);
  const teams = p.add(teamIds);
  let extra = '';
  if (only.cursor)
    extra = ` AND (b."createdAt", b.id) < (${p.add(only.cursor.at)}::timestamptz, ${p.add(only.cursor.id)}::uuid)`;
  else if (only.id !== undefined) extra = ` AND b.id = ${p.add(only.id)}`;
  const sql = `SELECT b.id, b.note, ${iso('b."createdAt"')} AS "createdAt",
      json_build_object('id', m.id, 'role', m.role, 'excerpt', left(m.content, 200),
        'createdAt', ${iso('m."createdAt"')}) AS message,
      json_build_object('id', c.id, 'title', c.title) AS chat
    FROM bookmarks b
    JOIN messages m ON m.id = b."messageId"
    JOIN chats c ON c.id = b."chatId"
    WHERE b."userId" = ${user} AND (c."userId" = ${user} OR c."teamId" = ANY(${teams}::uuid[]))${extra}
    ORDER BY b."createdAt" DESC, b.id DESC
    LIMIT ${p.add(limit)}`;
  return { sql, params: p.values };
}

/**
 * Bookmarks message $2 of chat $3 for user $1 with note $4 (or null); returns `{id, created}`.
 * Idempotent on (user, message): bookmarking again returns the same row (`created` false) and
 * replaces its note only when $5 (boolean: a note was given).
 */
export const UPSERT_BOOKMARK_SQL = `INSERT INTO bookmarks ("userId", "messageId", "chatId", note) VALUES ($1, $2, $3, $4)
       ON CONFLICT ("userId", "messageId") DO UPDATE
         SET note = CASE WHEN $5 THEN EXCLUDED.note ELSE bookmarks.note END,
             "updatedAt" = CASE WHEN $5 THEN now() ELSE bookmarks."updatedAt" END
       RETURNING id, (xmax = 0) AS created`;

/** Sets the note of bookmark $1 of user $2 to $3 (null clears it); never another user's. */
export const UPDATE_BOOKMARK_NOTE_SQL = `UPDATE bookmarks SET note = $3, "updatedAt" = now() WHERE id = $1 AND "userId" = $2`;

/** Deletes bookmark $1 of user $2; never another user's. */
export const DELETE_BOOKMARK_SQL = 'DELETE FROM bookmarks WHERE id = $1 AND "userId" = $2';
