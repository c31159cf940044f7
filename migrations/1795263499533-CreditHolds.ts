import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreditHolds1795263499533 implements MigrationInterface {
  name = 'CreditHolds1795263499533';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "credit_holds" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "userId" uuid NOT NULL, "amount" integer NOT NULL, "requestId" character varying(64) NOT NULL, "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "expiresAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "CHK_credit_holds_amount_positive" CHECK ("amount" > 0), CONSTRAINT "PK_d8f088c9664213c62b45b222a45" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_credit_holds_user" ON "credit_holds" ("userId") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_credit_holds_request" ON "credit_holds" ("requestId") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_credit_holds_expires" ON "credit_holds" ("expiresAt") `,
    );
    await queryRunner.query(
      `ALTER TABLE "credit_holds" ADD CONSTRAINT "FK_46eb42d4038e982ec10e1f9bdbc" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "credit_holds" DROP CONSTRAINT "FK_46eb42d4038e982ec10e1f9bdbc"`,
    );
    await queryRunner.query(`DROP INDEX "public"."IDX_credit_holds_expires"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_credit_holds_request"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_credit_holds_user"`);
    await queryRunner.query(`DROP TABLE "credit_holds"`);
  }
}
