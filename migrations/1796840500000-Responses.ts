import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stored responses of `/v1/responses` (`store: true`): the answered `response` object (`body`),
 * the input and output items of its conversation (`context`, replayed by
 * `previous_response_id`), and the chat the exchange was saved to (`chatId`). Deleting that chat
 * deletes its stored responses (whoever deletes a conversation expects its text gone everywhere);
 * deleting the user deletes them all.
 */
export class Responses1796840500000 implements MigrationInterface {
  name = 'Responses1796840500000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "responses" (
        "id" varchar(64) NOT NULL,
        "userId" uuid NOT NULL,
        "chatId" uuid,
        "body" jsonb NOT NULL,
        "context" jsonb NOT NULL,
        "createdAt" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "PK_responses" PRIMARY KEY ("id"),
        CONSTRAINT "FK_responses_user" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE,
        CONSTRAINT "FK_responses_chat" FOREIGN KEY ("chatId") REFERENCES "chats"("id") ON DELETE CASCADE
      )`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_responses_user" ON "responses" ("userId")`);
    await queryRunner.query(`CREATE INDEX "IDX_responses_chat" ON "responses" ("chatId")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "responses"`);
  }
}
