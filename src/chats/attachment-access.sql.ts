/**
 * SQL condition on `a` (message_attachments), `m` (its message) and `u` (its upload): the
 * message's author owns the upload. Only such attachments open the file to a chat's readers
 * and are shown in chat reads.
 */
export const OWNER_ATTACHED = `m."userId" = u."userId"`;

/**
 * `{messageId, uploadId, filename, contentType}` of the attachments of the messages $1 (uuid[])
 * that the upload's owner made (OWNER_ATTACHED), by message then position.
 */
export const ATTACHMENTS_OF_MESSAGES_SQL = `SELECT a."messageId", u.id AS "uploadId", u.filename, u."contentType"
         FROM message_attachments a
         JOIN messages m ON m.id = a."messageId"
         JOIN uploads u ON u.id = a."uploadId"
        WHERE a."messageId" = ANY($1::uuid[]) AND ${OWNER_ATTACHED}
        ORDER BY a."messageId", a.position`;

/**
 * One row when user $2 can now read a chat in which the owner of upload $1 attached it to a
 * message (OWNER_ATTACHED): the chat is theirs, or shared with a team they belong to, read at
 * query time so leaving the team ends it at once. One indexed lookup.
 */
export const UPLOAD_READABLE_THROUGH_CHAT_SQL = `SELECT 1
         FROM message_attachments a
         JOIN messages m ON m.id = a."messageId"
         JOIN uploads u ON u.id = a."uploadId"
         JOIN chats c ON c.id = m."chatId"
        WHERE a."uploadId" = $1 AND ${OWNER_ATTACHED}
          AND (c."userId" = $2
               OR EXISTS (SELECT 1 FROM team_members tm
                           WHERE tm."teamId" = c."teamId" AND tm."userId" = $2))
        LIMIT 1`;

/**
 * The ids among uploads $1 (uuid[]) attached to any message of any chat, by anyone: such an
 * upload is part of a chat's content. One indexed lookup per id.
 */
export const UPLOADS_IN_ANY_CHAT_SQL = `SELECT DISTINCT a."uploadId" AS id
         FROM message_attachments a
        WHERE a."uploadId" = ANY($1::uuid[])`;
