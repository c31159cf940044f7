import { READABLE_CHAT } from './keyword-search.sql';

// The statements on `message_vectors`, beside MessageVectorsRepository.

/**
 * `{id, content, payerId}` of up to $2 messages of chat $1 without a vector, oldest first. The
 * payer is the author, or for an assistant reply (no author) the author of the closest earlier
 * user message of the chat, else the chat's owner; payers paused for this chat are left out.
 */
export const PENDING_MESSAGES_SQL = `SELECT x.* FROM (
         SELECT m.id, m.content, m."createdAt", m.seq, COALESCE(m."userId", (
             SELECT p."userId" FROM messages p
             WHERE p."chatId" = m."chatId" AND p."userId" IS NOT NULL
               AND (p."createdAt", p.seq) < (m."createdAt", m.seq)
             ORDER BY p."createdAt" DESC, p.seq DESC LIMIT 1), c."userId") AS "payerId"
         FROM messages m JOIN chats c ON c.id = m."chatId"
         WHERE m."chatId" = $1
           AND NOT EXISTS (SELECT 1 FROM message_vectors v WHERE v."messageId" = m.id)
       ) x
       WHERE NOT EXISTS (
         SELECT 1 FROM search_index_pauses s WHERE s."chatId" = $1 AND s."userId" = x."payerId")
       ORDER BY x."createdAt", x.seq
       LIMIT $2`;

/**
 * Stores vectors: $1 message ids (uuid[]), $2 their unit vectors as array literals (text[], in
 * the same order), $3 the embeddings model. Only messages that still exist get a row, and a
 * message that has one keeps it; returns the stored ids as `{id}`.
 */
export const STORE_VECTORS_SQL = `INSERT INTO message_vectors ("messageId", "chatId", model, embedding)
       SELECT m.id, m."chatId", $3, v.embedding::real[]
       FROM unnest($1::uuid[], $2::text[]) AS v(id, embedding) JOIN messages m ON m.id = v.id
       ON CONFLICT ("messageId") DO NOTHING
       RETURNING "messageId" AS id`;

/**
 * `{id, score}` of the $4 messages nearest to unit vector $2 (real[]) by dot product (= cosine)
 * among the chats user $1 may read (READABLE_CHAT: the access check is in the statement),
 * vectors of model $3 only; best first. An exact scan.
 */
export const NEAREST_SQL = `SELECT v."messageId" AS id, search_dot(v.embedding, $2::real[]) AS score
       FROM chats c JOIN message_vectors v ON v."chatId" = c.id
       WHERE ${READABLE_CHAT} AND v.model = $3
       ORDER BY score DESC, v."messageId"
       LIMIT $4`;

/** `{chatId}` of every chat with at least one message without a vector. */
export const CHATS_WITH_PENDING_SQL = `SELECT DISTINCT m."chatId" FROM messages m
       WHERE NOT EXISTS (SELECT 1 FROM message_vectors v WHERE v."messageId" = m.id)`;
