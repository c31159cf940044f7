/**
 * The statements of keyword search and of the result details. Both check access in the same
 * statement: a chat is readable by its owner and by the members of the team it is shared with
 * (the rule of ChatsService.requireChatAccess for `read`, read from `team_members` at query time).
 */

/** SQL condition on chats `c`: user `$1` may read it. */
export const READABLE_CHAT = `(c."userId" = $1 OR c."teamId" IN (
    SELECT tm."teamId" FROM team_members tm WHERE tm."userId" = $1))`;

/**
 * Keyword search: $1 user, $2 query text, $3 rows. Matches the stored `searchVector` (English
 * stems + CJK bigrams, migration Search) against `search_query($2)`, ranked by ts_rank_cd (cover
 * density), newest first on ties. Returns `{id, score}`.
 */
export const KEYWORD_SQL = `SELECT m.id, ts_rank_cd(m."searchVector", q.tsq)::float8 AS score
   FROM (SELECT search_query($2) AS tsq) q, messages m JOIN chats c ON c.id = m."chatId"
   WHERE m."searchVector" @@ q.tsq AND ${READABLE_CHAT}
   ORDER BY score DESC, m."createdAt" DESC, m.id
   LIMIT $3`;

/** Characters of a message read for its snippet (the highlighter parses this much). */
export const SNIPPET_SOURCE_CHARS = 20_000;

/**
 * The details of the result page: $1 user, $2 message ids, $3 query text (CJK removed).
 * `headline` is the text (its first SNIPPET_SOURCE_CHARS) with every English match, stems
 * included, between U+0002 and U+0003 (removed from the text first, so they cannot be confused
 * with content); the caller cuts the snippet and finds the CJK matches.
 */
export const DETAILS_SQL = `SELECT m.id, m.role, m."createdAt", c.id AS "chatId", c.title, t.text,
     ts_headline('english'::regconfig, t.text,
       websearch_to_tsquery('english'::regconfig, $3),
       'StartSel=${'\u0002'}, StopSel=${'\u0003'}, HighlightAll=true') AS headline
   FROM messages m JOIN chats c ON c.id = m."chatId",
     LATERAL (SELECT translate(left(m.content, ${SNIPPET_SOURCE_CHARS}), E'\\u0002\\u0003', '') AS text) t
   WHERE m.id = ANY($2::uuid[]) AND ${READABLE_CHAT}`;
