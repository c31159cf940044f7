import { MigrationInterface, QueryRunner } from 'typeorm';

/** A chat's own model parameters (null: none; the preferences apply). */
export class ChatSettings1795280100000 implements MigrationInterface {
  name = 'ChatSettings1795280100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "chats" ADD "settings" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "chats" DROP COLUMN "settings"`);
  }
}
