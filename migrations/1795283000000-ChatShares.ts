import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One public read-only link per chat, stored as the SHA-256 of its token with a
 * snapshot (title and messages at the moment of sharing, no user ids).
 */
export class ChatShares1795283000000 implements MigrationInterface {
  name = 'ChatShares1795283000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "chat_shares" ("chatId" uuid NOT NULL, "tokenHash" character varying(64) NOT NULL, "snapshot" jsonb NOT NULL, "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_chat_shares" PRIMARY KEY ("chatId"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_chat_shares_token_hash" ON "chat_shares" ("tokenHash")`,
    );
    await queryRunner.query(
      `ALTER TABLE "chat_shares" ADD CONSTRAINT "FK_chat_shares_chat" FOREIGN KEY ("chatId") REFERENCES "chats"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "chat_shares"`);
  }
}
