import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A message keeps the images it was sent with (`message_attachments`, in order), and a
 * tool loop is saved as messages: the assistant's tool calls and each result as a `TOOL` message,
 * both described by `messages.tool` (jsonb). An upload's rows go with the upload, a message's
 * with the message; `uploadId` is indexed for the download check ("a reader of a chat whose
 * messages attach it").
 */
export class AttachmentsAndTools1796600000000 implements MigrationInterface {
  name = 'AttachmentsAndTools1796600000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE message_attachments (
        "messageId" uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        position smallint NOT NULL,
        "uploadId" uuid NOT NULL REFERENCES uploads(id) ON DELETE CASCADE,
        CONSTRAINT "PK_message_attachments" PRIMARY KEY ("messageId", position)
      )`);
    await q.query(
      `CREATE INDEX "IDX_message_attachments_upload" ON message_attachments ("uploadId")`,
    );
    await q.query(`ALTER TABLE messages DROP CONSTRAINT "CHK_messages_role"`);
    await q.query(
      `ALTER TABLE messages ADD CONSTRAINT "CHK_messages_role" CHECK (role IN ('USER', 'ASSISTANT', 'TOOL'))`,
    );
    await q.query(`ALTER TABLE messages ADD COLUMN tool jsonb`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages DROP COLUMN tool`);
    await q.query(`DELETE FROM messages WHERE role = 'TOOL'`);
    await q.query(`ALTER TABLE messages DROP CONSTRAINT "CHK_messages_role"`);
    await q.query(
      `ALTER TABLE messages ADD CONSTRAINT "CHK_messages_role" CHECK (role IN ('USER', 'ASSISTANT'))`,
    );
    await q.query(`DROP TABLE message_attachments`);
  }
}
