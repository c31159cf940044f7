import { MigrationInterface, QueryRunner } from 'typeorm';

/** The preference panel, one JSONB document per user (null until first saved). */
export class UserPreferences1795280000000 implements MigrationInterface {
  name = 'UserPreferences1795280000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" ADD "preferences" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "preferences"`);
  }
}
