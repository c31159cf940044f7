import { MigrationInterface, QueryRunner } from 'typeorm';

/** Private chat tags (unique per user case-insensitively) and their chat links. */
export class ChatTags1795281000000 implements MigrationInterface {
  name = 'ChatTags1795281000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "tags" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "userId" uuid NOT NULL, "name" character varying(40) NOT NULL, "color" character varying(7), "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updatedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_tags" PRIMARY KEY ("id"), CONSTRAINT "CHK_tags_color" CHECK ("color" ~ '^#[0-9a-f]{6}$'))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_tags_user_name" ON "tags" ("userId", lower("name"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "tags" ADD CONSTRAINT "FK_tags_user" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE TABLE "chat_tags" ("chatId" uuid NOT NULL, "tagId" uuid NOT NULL, CONSTRAINT "PK_chat_tags" PRIMARY KEY ("chatId", "tagId"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_chat_tags_tag" ON "chat_tags" ("tagId", "chatId")`);
    await queryRunner.query(
      `ALTER TABLE "chat_tags" ADD CONSTRAINT "FK_chat_tags_chat" FOREIGN KEY ("chatId") REFERENCES "chats"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "chat_tags" ADD CONSTRAINT "FK_chat_tags_tag" FOREIGN KEY ("tagId") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "chat_tags"`);
    await queryRunner.query(`DROP TABLE "tags"`);
  }
}
