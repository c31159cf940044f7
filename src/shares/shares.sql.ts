import { isoTimestamp as iso } from '../database/sql-fragments';
// The raw statement on `chat_shares`, beside SharesService.

/**
 * Makes or refreshes the share link of chat $1 with token hash $2 (hex SHA-256; the token itself
 * is never stored): the snapshot of the title and every message (`role`, `content`, ISO
 * `createdAt`, in conversation order) is copied in the same statement. A chat has one link: a
 * refresh replaces the hash, so the old token stops working.
 */
export const UPSERT_SHARE_SQL = `INSERT INTO chat_shares ("chatId", "tokenHash", snapshot)
       SELECT c.id, $2, jsonb_build_object('title', c.title, 'messages', COALESCE((
           SELECT jsonb_agg(jsonb_build_object('role', m.role, 'content', m.content,
             'createdAt', ${iso('m."createdAt"')}) ORDER BY m."createdAt", m.seq)
           FROM messages m WHERE m."chatId" = c.id
         ), '[]'::jsonb))
       FROM chats c WHERE c.id = $1
       ON CONFLICT ("chatId") DO UPDATE
         SET "tokenHash" = EXCLUDED."tokenHash", snapshot = EXCLUDED.snapshot, "createdAt" = now()`;
