import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat search. Keyword search reads a stored generated column on `messages`
 * (`searchVector`: English words with stemming + CJK bigrams, see docs/search.md) with a GIN
 * index, so a saved message is searchable at once with no queue in the way. Semantic search
 * reads `message_vectors` (one unit-length vector per message, real[]; pgvector is not available
 * on our PostgreSQL builds); `search_index_pauses` remembers the chats whose indexing waits for
 * a payer's top-up. The functions pin their search_path, so a dump restores (the generated
 * column calls them).
 */
/** CJK runs: the ranges of src/search/cjk.ts, frozen here as this migration created them. */
const CJK_CLASS_SQL =
  '[\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff]';

export class Search1796300000000 implements MigrationInterface {
  name = 'Search1796300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Overlapping bigrams of every CJK run (a one-character run stays itself), space-separated.
    await queryRunner.query(
      `CREATE FUNCTION search_cjk_bigrams(t text) RETURNS text
       LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $$
         SELECT coalesce(string_agg(substr(r.run, i, 2), ' '), '')
         FROM (SELECT (regexp_matches(t, '${CJK_CLASS_SQL}+', 'g'))[1] AS run) r,
              generate_series(1, greatest(char_length(r.run) - 1, 1)) AS i
       $$`,
    );
    // At most the first 100 000 characters count, so no message can exceed tsvector's 1 MB.
    await queryRunner.query(
      `CREATE FUNCTION search_document(t text) RETURNS tsvector
       LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $$
         SELECT to_tsvector('english'::regconfig,
                  regexp_replace(left(t, 100000), '${CJK_CLASS_SQL}+', ' ', 'g'))
             || to_tsvector('simple'::regconfig, search_cjk_bigrams(left(t, 100000)))
       $$`,
    );
    // Web-search syntax for the English part ("quotes", or, -word); every CJK bigram must match.
    await queryRunner.query(
      `CREATE FUNCTION search_query(q text) RETURNS tsquery
       LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $$
         SELECT websearch_to_tsquery('english'::regconfig,
                  regexp_replace(q, '${CJK_CLASS_SQL}+', ' ', 'g'))
             && plainto_tsquery('simple'::regconfig, search_cjk_bigrams(q))
       $$`,
    );
    // Vectors are stored at unit length, so their dot product is the cosine.
    await queryRunner.query(
      `CREATE FUNCTION search_dot(a real[], b real[]) RETURNS double precision
       LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
         SELECT sum(x::float8 * y::float8) FROM unnest(a, b) AS t(x, y)
       $$`,
    );
    await queryRunner.query(
      `ALTER TABLE "messages" ADD COLUMN "searchVector" tsvector
         GENERATED ALWAYS AS (search_document("content")) STORED`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_messages_search" ON "messages" USING gin ("searchVector")`,
    );
    await queryRunner.query(
      `CREATE TABLE "message_vectors" (
        "messageId" uuid NOT NULL,
        "chatId" uuid NOT NULL,
        "model" character varying(200) NOT NULL,
        "embedding" real[] NOT NULL,
        "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_message_vectors" PRIMARY KEY ("messageId"),
        CONSTRAINT "FK_message_vectors_message" FOREIGN KEY ("messageId") REFERENCES "messages"("id") ON DELETE CASCADE,
        CONSTRAINT "FK_message_vectors_chat" FOREIGN KEY ("chatId") REFERENCES "chats"("id") ON DELETE CASCADE
      )`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_message_vectors_chat" ON "message_vectors" ("chatId")`,
    );
    await queryRunner.query(
      `CREATE TABLE "search_index_pauses" (
        "userId" uuid NOT NULL,
        "chatId" uuid NOT NULL,
        "pausedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_search_index_pauses" PRIMARY KEY ("userId", "chatId"),
        CONSTRAINT "FK_search_index_pauses_user" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE,
        CONSTRAINT "FK_search_index_pauses_chat" FOREIGN KEY ("chatId") REFERENCES "chats"("id") ON DELETE CASCADE
      )`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "search_index_pauses"`);
    await queryRunner.query(`DROP TABLE "message_vectors"`);
    await queryRunner.query(`DROP INDEX "IDX_messages_search"`);
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN "searchVector"`);
    await queryRunner.query(`DROP FUNCTION search_dot(real[], real[])`);
    await queryRunner.query(`DROP FUNCTION search_query(text)`);
    await queryRunner.query(`DROP FUNCTION search_document(text)`);
    await queryRunner.query(`DROP FUNCTION search_cjk_bigrams(text)`);
  }
}
