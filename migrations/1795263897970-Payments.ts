import { MigrationInterface, QueryRunner } from 'typeorm';

export class Payments1795263897970 implements MigrationInterface {
  name = 'Payments1795263897970';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_events" ("id" character varying(255) NOT NULL, "type" character varying(100) NOT NULL, "eventCreatedAt" TIMESTAMP WITH TIME ZONE NOT NULL, "processedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_4cba37e6a0acb5e1fc49c34ebfd" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "subscriptions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "processorId" character varying(255) NOT NULL, "userId" uuid NOT NULL, "customerId" character varying(255) NOT NULL, "priceId" character varying(255), "plan" character varying(10), "status" character varying(32) NOT NULL, "currentPeriodEnd" TIMESTAMP WITH TIME ZONE, "stateAt" TIMESTAMP WITH TIME ZONE NOT NULL, "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updatedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_subscriptions_plan" CHECK ("plan" IN ('BASIC', 'PRO')), CONSTRAINT "PK_a87248d73155605cf782be9ee5e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_subscriptions_processor_id" ON "subscriptions" ("processorId") `,
    );
    await queryRunner.query(`CREATE INDEX "IDX_subscriptions_user" ON "subscriptions" ("userId") `);
    await queryRunner.query(
      `ALTER TABLE "subscriptions" ADD CONSTRAINT "FK_fbdba4e2ac694cf8c9cecf4dc84" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "subscriptions" DROP CONSTRAINT "FK_fbdba4e2ac694cf8c9cecf4dc84"`,
    );
    await queryRunner.query(`DROP INDEX "public"."IDX_subscriptions_user"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_subscriptions_processor_id"`);
    await queryRunner.query(`DROP TABLE "subscriptions"`);
    await queryRunner.query(`DROP TABLE "webhook_events"`);
  }
}
