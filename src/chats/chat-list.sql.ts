import { isoTimestamp as iso } from '../database/sql-fragments';
import { SqlParams, type SqlStatement } from '../database/sql-params';
import { OWNER_ATTACHED } from './attachment-access.sql';
import { DEFAULT_CHAT_MESSAGES } from './chat-limits';
import type { ChatDto } from './dto/chat.dto';

/**
 * A message's optional keys, only when present: `tool`, and its images as
 * `attachments` in order (without `url`, which the service signs). Only images the message's
 * author owns are listed (OWNER_ATTACHED): someone else's upload sent again is no access path,
 * so it is not shown with a link. A primary-key lookup per message.
 */
const MESSAGE_EXTRAS = `CASE WHEN m.tool IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('tool', m.tool) END
  || COALESCE((
    SELECT jsonb_build_object('attachments', jsonb_agg(jsonb_build_object(
      'uploadId', u.id, 'filename', u.filename, 'contentType', u."contentType") ORDER BY a.position))
    FROM message_attachments a JOIN uploads u ON u.id = a."uploadId"
    WHERE a."messageId" = m.id AND ${OWNER_ATTACHED} HAVING count(*) > 0), '{}'::jsonb)`;

/**
 * One keyset page of chats as `ChatDto`s, each with its latest `messages` messages (oldest first
 * among them), `messageCount` and `hasMoreMessages`, in one statement. The answer's size is
 * bounded by the page, not by the history.
 * PostgreSQL builds the messages as JSON and the timestamps as ISO strings, so a page of 50
 * chats × 20 messages is not hydrated into 1050 entities and 2100 `Date`s only to be written out
 * again (bench scenario 2: TypeORM hydration, row parsing and dates were half the CPU).
 *
 * `filter` is the condition on `c` (chats) choosing the chats (chatsOf, chatsOfTeam,
 * chatById); its parameters come first, then the viewer, the cursor and the limit.
 * `viewerId` is the caller: each chat carries only the caller's own tags (tags are private), by
 * name. Returns `ChatDto` rows, newest `updatedAt` first, at most `limit` rows.
 */
export function chatPageSql(
  filter: ChatFilter,
  viewerId: string,
  cursor: { at: Date; id: string } | undefined,
  limit: number,
  messages = DEFAULT_CHAT_MESSAGES,
): SqlStatement {
  const p = new SqlParams();
  const where = filter(p);
  const viewer = `${p.add(viewerId)}::uuid`;
  const keyset = cursor
    ? ` AND (c."updatedAt", c.id) < (${p.add(cursor.at)}::timestamptz, ${p.add(cursor.id)}::uuid)`
    : '';
  const perChat = `${p.add(messages)}::int`;
  // The latest messages come from the (chatId, createdAt, seq) index read backwards; the count
  // is an index-only scan of the same index.
  const sql = `SELECT c.id, c.title, c."userId", c."teamId", COALESCE(c.settings, '{}') AS settings,
      ${iso('c."createdAt"')} AS "createdAt", ${iso('c."updatedAt"')} AS "updatedAt",
      COALESCE((
        SELECT json_agg(jsonb_build_object(
          'id', m.id, 'chatId', m."chatId", 'userId', m."userId", 'role', m.role,
          'content', m.content, 'createdAt', ${iso('m."createdAt"')}
        ) || ${MESSAGE_EXTRAS} ORDER BY m."createdAt", m.seq)
        FROM (
          SELECT id, "chatId", "userId", role, content, tool, "createdAt", seq FROM messages WHERE "chatId" = c.id
          ORDER BY "createdAt" DESC, seq DESC LIMIT ${perChat}
        ) m
      ), '[]'::json) AS messages,
      mc.n AS "messageCount", mc.n > ${perChat} AS "hasMoreMessages",
      COALESCE((
        SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color)
          ORDER BY lower(t.name), t.id)
        FROM chat_tags ct JOIN tags t ON t.id = ct."tagId"
        WHERE ct."chatId" = c.id AND t."userId" = ${viewer}
      ), '[]'::json) AS tags
    FROM chats c
    CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM messages WHERE "chatId" = c.id) mc
    WHERE (${where})${keyset}
    ORDER BY c."updatedAt" DESC, c.id DESC
    LIMIT ${p.add(limit)}`;
  return { sql, params: p.values };
}

/** A row of `chatPageSql`. */
export type ChatPageRow = ChatDto & {
  messages: NonNullable<ChatDto['messages']>;
  messageCount: number;
  hasMoreMessages: boolean;
};

/** The chats a page lists: a condition on `c`, its values added to the statement's `p`. */
export type ChatFilter = (p: SqlParams) => string;

/**
 * The chats of user `userId`, or also those shared with `teamIds` when there are any; with
 * `tagIds`, only those carrying all of them.
 */
export function chatsOf(userId: string, teamIds: string[], tagIds: string[]): ChatFilter {
  return (p) => {
    const user = p.add(userId);
    let where = teamIds.length
      ? `(c."userId" = ${user} OR c."teamId" = ANY(${p.add(teamIds)}::uuid[]))`
      : `c."userId" = ${user}`;
    if (tagIds.length) where += ` AND ${allTagsSql(p.add([...new Set(tagIds)]), user)}`;
    return where;
  };
}

/** The chats shared with team `teamId`. */
export const chatsOfTeam =
  (teamId: string): ChatFilter =>
  (p) =>
    `c."teamId" = ${p.add(teamId)}`;

/** Chat `chatId` alone. */
export const chatById =
  (chatId: string): ChatFilter =>
  (p) =>
    `c.id = ${p.add(chatId)}`;

/**
 * Condition on `c` for `?tag=`: the chat carries every tag of `tagIds` (a uuid[]
 * placeholder) and each of them is a tag of the user `user` (placeholder), so another user's tag
 * id matches nothing.
 */
function allTagsSql(tagIds: string, user: string): string {
  return `NOT EXISTS (
      SELECT 1 FROM unnest(${tagIds}::uuid[]) AS wanted(id)
      WHERE NOT EXISTS (
        SELECT 1 FROM chat_tags ct JOIN tags t ON t.id = ct."tagId"
        WHERE ct."chatId" = c.id AND ct."tagId" = wanted.id AND t."userId" = ${user}::uuid
      )
    )`;
}
