import { MigrationInterface, QueryRunner } from 'typeorm';

/** TOTP second factor, recovery codes, and a token version that ends old sessions. */
export class TwoFactor1795270000000 implements MigrationInterface {
  name = 'TwoFactor1795270000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" ADD "tokenVersion" integer NOT NULL DEFAULT 0`);
    await queryRunner.query(
      `CREATE TABLE "two_factor" ("userId" uuid NOT NULL, "secret" character varying(255) NOT NULL, "enabledAt" TIMESTAMP(3) WITH TIME ZONE, "lastUsedStep" bigint, "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updatedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_two_factor" PRIMARY KEY ("userId"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "two_factor" ADD CONSTRAINT "FK_two_factor_user" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE TABLE "recovery_codes" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "userId" uuid NOT NULL, "codeHash" character varying(64) NOT NULL, "usedAt" TIMESTAMP(3) WITH TIME ZONE, "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_recovery_codes" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_recovery_codes_user_hash" ON "recovery_codes" ("userId", "codeHash") `,
    );
    await queryRunner.query(
      `ALTER TABLE "recovery_codes" ADD CONSTRAINT "FK_recovery_codes_user" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "recovery_codes" DROP CONSTRAINT "FK_recovery_codes_user"`,
    );
    await queryRunner.query(`DROP INDEX "public"."UQ_recovery_codes_user_hash"`);
    await queryRunner.query(`DROP TABLE "recovery_codes"`);
    await queryRunner.query(`ALTER TABLE "two_factor" DROP CONSTRAINT "FK_two_factor_user"`);
    await queryRunner.query(`DROP TABLE "two_factor"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "tokenVersion"`);
  }
}
