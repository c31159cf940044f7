import { MigrationInterface, QueryRunner } from 'typeorm';

/** Message bookmarks, one per user and message; they go with the message or chat. */
export class Bookmarks1795282000000 implements MigrationInterface {
  name = 'Bookmarks1795282000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "bookmarks" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "userId" uuid NOT NULL, "messageId" uuid NOT NULL, "chatId" uuid NOT NULL, "note" character varying(500), "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updatedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_bookmarks" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_bookmarks_user_message" ON "bookmarks" ("userId", "messageId")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_bookmarks_user_created" ON "bookmarks" ("userId", "createdAt", "id")`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_bookmarks_message" ON "bookmarks" ("messageId")`);
    await queryRunner.query(`CREATE INDEX "IDX_bookmarks_chat" ON "bookmarks" ("chatId")`);
    await queryRunner.query(
      `ALTER TABLE "bookmarks" ADD CONSTRAINT "FK_bookmarks_user" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "bookmarks" ADD CONSTRAINT "FK_bookmarks_message" FOREIGN KEY ("messageId") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "bookmarks" ADD CONSTRAINT "FK_bookmarks_chat" FOREIGN KEY ("chatId") REFERENCES "chats"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "bookmarks"`);
  }
}
