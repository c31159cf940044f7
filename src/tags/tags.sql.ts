// The raw statements on `tags` and `chat_tags`, beside TagsService.

/**
 * Takes the transaction-scoped advisory lock of user $1's tags: tag creations of one user take
 * turns, so the per-user limit cannot be passed by two at once.
 */
export const LOCK_USER_TAGS_SQL = `SELECT pg_advisory_xact_lock(hashtextextended('tags:' || $1, 0))`;

/** `{n}`: user $1's tags. */
export const COUNT_TAGS_SQL = 'SELECT count(*)::int AS n FROM tags WHERE "userId" = $1';

/**
 * Replaces user $2's tags on chat $1 with the tags $3 (uuid[], distinct), in one statement:
 * `{ok}` is false, and nothing changes, unless every id of $3 is a tag of user $2. Other users'
 * tags on the chat stay.
 */
export const SET_CHAT_TAGS_SQL = `WITH mine AS (
         SELECT id FROM tags WHERE "userId" = $2 AND id = ANY($3::uuid[])
       ), ok AS (
         SELECT (SELECT count(*) FROM mine) = cardinality($3::uuid[]) AS ok
       ), gone AS (
         DELETE FROM chat_tags ct USING tags t, ok
         WHERE ok.ok AND ct."chatId" = $1 AND t.id = ct."tagId" AND t."userId" = $2
           AND NOT (ct."tagId" = ANY($3::uuid[]))
       ), added AS (
         INSERT INTO chat_tags ("chatId", "tagId") SELECT $1, mine.id FROM mine, ok WHERE ok.ok
         ON CONFLICT DO NOTHING
       )
       SELECT ok FROM ok`;
