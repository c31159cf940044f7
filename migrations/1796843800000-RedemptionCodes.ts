import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Redemption codes (src/redemption): `redemption_batches`, an admin's batch of codes worth
 * `credits` each, usable `usesPerCode` times (by distinct users when `onePerUser`) until
 * `expiresAt`; its codes sealed in `sealedCodes` until the one export clears them.
 * `redemption_codes`, one row per code: only its SHA-256 (`codeHash`, unique) and the uses taken,
 * which never pass the batch's `usesPerCode` (the redeem statement's compare-and-swap keeps it).
 * The grants themselves are REDEMPTION entries of `credit_transactions` (a varchar type, no list
 * to extend), keyed by code and user.
 */
export class RedemptionCodes1796843800000 implements MigrationInterface {
  name = 'RedemptionCodes1796843800000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "redemption_batches" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "name" character varying(100) NOT NULL,
      "credits" integer NOT NULL,
      "quantity" integer NOT NULL,
      "usesPerCode" integer NOT NULL DEFAULT 1,
      "onePerUser" boolean NOT NULL DEFAULT true,
      "expiresAt" TIMESTAMP(3) WITH TIME ZONE,
      "disabledAt" TIMESTAMP(3) WITH TIME ZONE,
      "exportedAt" TIMESTAMP(3) WITH TIME ZONE,
      "sealedCodes" text,
      "createdBy" uuid,
      "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT "PK_redemption_batches" PRIMARY KEY ("id"),
      CONSTRAINT "CHK_redemption_batches_credits" CHECK ("credits" > 0),
      CONSTRAINT "CHK_redemption_batches_quantity" CHECK ("quantity" > 0),
      CONSTRAINT "CHK_redemption_batches_uses" CHECK ("usesPerCode" > 0),
      CONSTRAINT "CHK_redemption_batches_export" CHECK ("exportedAt" IS NULL OR "sealedCodes" IS NULL),
      CONSTRAINT "FK_redemption_batches_creator" FOREIGN KEY ("createdBy")
        REFERENCES "users"("id") ON DELETE SET NULL)`);
    await q.query(
      `CREATE INDEX "IDX_redemption_batches_created" ON "redemption_batches" ("createdAt", "id")`,
    );
    await q.query(`CREATE TABLE "redemption_codes" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "batchId" uuid NOT NULL,
      "codeHash" character(64) NOT NULL,
      "uses" integer NOT NULL DEFAULT 0,
      CONSTRAINT "PK_redemption_codes" PRIMARY KEY ("id"),
      CONSTRAINT "UQ_redemption_codes_hash" UNIQUE ("codeHash"),
      CONSTRAINT "CHK_redemption_codes_uses" CHECK ("uses" >= 0),
      CONSTRAINT "FK_redemption_codes_batch" FOREIGN KEY ("batchId")
        REFERENCES "redemption_batches"("id") ON DELETE CASCADE)`);
    await q.query(`CREATE INDEX "IDX_redemption_codes_batch" ON "redemption_codes" ("batchId")`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "redemption_codes"`);
    await q.query(`DROP TABLE "redemption_batches"`);
  }
}
