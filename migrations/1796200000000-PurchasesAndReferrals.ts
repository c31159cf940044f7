import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Credit purchases as records (card, Alipay, WeChat Pay; updated only by webhooks),
 * referral codes, and referrals (one per referred user, fixed at sign-up).
 */
export class PurchasesAndReferrals1796200000000 implements MigrationInterface {
  name = 'PurchasesAndReferrals1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "purchases" ("id" uuid NOT NULL, "userId" uuid NOT NULL, "paymentIntentId" character varying(255) NOT NULL, "method" character varying(20) NOT NULL, "currency" character varying(3) NOT NULL, "amount" integer NOT NULL, "credits" integer NOT NULL, "status" character varying(20) NOT NULL DEFAULT 'pending', "refundedAmount" integer NOT NULL DEFAULT 0, "appliedRefunds" jsonb NOT NULL DEFAULT '[]', "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updatedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_purchases" PRIMARY KEY ("id"), CONSTRAINT "CHK_purchases_method" CHECK ("method" IN ('card', 'alipay', 'wechat_pay')), CONSTRAINT "CHK_purchases_status" CHECK ("status" IN ('pending', 'processing', 'succeeded', 'failed', 'canceled', 'refunded')), CONSTRAINT "CHK_purchases_amounts" CHECK ("amount" > 0 AND "credits" > 0 AND "refundedAmount" >= 0))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_purchases_payment_intent" ON "purchases" ("paymentIntentId")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_purchases_user_created" ON "purchases" ("userId", "createdAt", "id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "purchases" ADD CONSTRAINT "FK_purchases_user" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );

    await queryRunner.query(
      `CREATE TABLE "referral_codes" ("userId" uuid NOT NULL, "code" character varying(8) NOT NULL, "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_referral_codes" PRIMARY KEY ("userId"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_referral_codes_code" ON "referral_codes" ("code")`,
    );
    await queryRunner.query(
      `ALTER TABLE "referral_codes" ADD CONSTRAINT "FK_referral_codes_user" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );

    await queryRunner.query(
      `CREATE TABLE "referrals" ("referredId" uuid NOT NULL, "referrerId" uuid NOT NULL, "status" character varying(10) NOT NULL DEFAULT 'pending', "rewardPayment" character varying(255), "rewardedAt" TIMESTAMP(3) WITH TIME ZONE, "reversedAt" TIMESTAMP(3) WITH TIME ZONE, "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_referrals" PRIMARY KEY ("referredId"), CONSTRAINT "CHK_referrals_status" CHECK ("status" IN ('pending', 'rewarded', 'reversed')), CONSTRAINT "CHK_referrals_not_self" CHECK ("referredId" <> "referrerId"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_referrals_referrer_created" ON "referrals" ("referrerId", "createdAt")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_referrals_reward_payment" ON "referrals" ("rewardPayment") WHERE "rewardPayment" IS NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "referrals" ADD CONSTRAINT "FK_referrals_referred" FOREIGN KEY ("referredId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "referrals" ADD CONSTRAINT "FK_referrals_referrer" FOREIGN KEY ("referrerId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "referrals"`);
    await queryRunner.query(`DROP TABLE "referral_codes"`);
    await queryRunner.query(`DROP TABLE "purchases"`);
  }
}
