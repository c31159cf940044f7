import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stripe Checkout for credit packs and plans (src/wallet):
 * - `credit_packs`: an admin's edit of a credit pack. A row overrides the CREDIT_PACKS pack of the
 *   same id, or adds a pack; `active = false` hides it. Without rows the packs are CREDIT_PACKS.
 * - `purchases.checkoutSessionId`: a purchase made through a Checkout Session (`cs_…`), unique.
 *   Its `paymentIntentId` is only known once the customer pays, so the column is nullable now;
 *   its `method` is `checkout` until the payment says which method paid.
 * The ledger's entry types are a list in code (`CREDIT_TRANSACTION_TYPES`), not a constraint of
 * the table, so the PLAN_GRANT entries of a plan's included credits need no change here.
 */
export class CheckoutAndPacks1796844200000 implements MigrationInterface {
  name = 'CheckoutAndPacks1796844200000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "credit_packs" (
      "id" character varying(64) NOT NULL,
      "credits" integer NOT NULL,
      "amount" integer NOT NULL,
      "currency" character varying(3) NOT NULL,
      "active" boolean NOT NULL DEFAULT true,
      "updatedBy" uuid,
      "updatedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_credit_packs" PRIMARY KEY ("id"),
      CONSTRAINT "CHK_credit_packs_amounts" CHECK ("credits" > 0 AND "amount" > 0),
      CONSTRAINT "CHK_credit_packs_currency" CHECK ("currency" IN ('usd', 'cny')))`);
    await q.query(`ALTER TABLE "purchases" ADD "checkoutSessionId" character varying(255)`);
    await q.query(
      `CREATE UNIQUE INDEX "UQ_purchases_checkout_session" ON "purchases" ("checkoutSessionId")`,
    );
    await q.query(`ALTER TABLE "purchases" ALTER COLUMN "paymentIntentId" DROP NOT NULL`);
    await q.query(`ALTER TABLE "purchases" DROP CONSTRAINT "CHK_purchases_method"`);
    await q.query(`ALTER TABLE "purchases" ADD CONSTRAINT "CHK_purchases_method"
      CHECK ("method" IN ('card', 'alipay', 'wechat_pay', 'checkout'))`);
    await q.query(`ALTER TABLE "purchases" ADD CONSTRAINT "CHK_purchases_payment"
      CHECK ("paymentIntentId" IS NOT NULL OR "checkoutSessionId" IS NOT NULL)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "purchases" WHERE "paymentIntentId" IS NULL`);
    await q.query(`UPDATE "purchases" SET "method" = 'card' WHERE "method" = 'checkout'`);
    await q.query(`ALTER TABLE "purchases" DROP CONSTRAINT "CHK_purchases_payment"`);
    await q.query(`ALTER TABLE "purchases" DROP CONSTRAINT "CHK_purchases_method"`);
    await q.query(`ALTER TABLE "purchases" ADD CONSTRAINT "CHK_purchases_method"
      CHECK ("method" IN ('card', 'alipay', 'wechat_pay'))`);
    await q.query(`ALTER TABLE "purchases" ALTER COLUMN "paymentIntentId" SET NOT NULL`);
    await q.query(`DROP INDEX "UQ_purchases_checkout_session"`);
    await q.query(`ALTER TABLE "purchases" DROP COLUMN "checkoutSessionId"`);
    await q.query(`DROP TABLE "credit_packs"`);
  }
}
