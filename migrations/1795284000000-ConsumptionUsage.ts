import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The usage of each metered request as columns of its CONSUMPTION entry (model and
 * tokens), for usage statistics. Earlier entries are filled from their description
 * (`AI <model>: <n> prompt + <m> completion tokens…`); entries without one stay null.
 */
export class ConsumptionUsage1795284000000 implements MigrationInterface {
  name = 'ConsumptionUsage1795284000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "credit_transactions" ADD "modelId" character varying(100), ADD "promptTokens" integer, ADD "completionTokens" integer`,
    );
    await queryRunner.query(
      `UPDATE "credit_transactions" ct
       SET "modelId" = x.m[1], "promptTokens" = x.m[2]::int, "completionTokens" = x.m[3]::int
       FROM (
         SELECT id, regexp_match(description, '^AI (\\S+): (\\d{1,9}) prompt \\+ (\\d{1,9}) completion tokens') AS m
         FROM "credit_transactions" WHERE type = 'CONSUMPTION'
       ) x
       WHERE ct.id = x.id AND x.m IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "credit_transactions" DROP COLUMN "completionTokens", DROP COLUMN "promptTokens", DROP COLUMN "modelId"`,
    );
  }
}
