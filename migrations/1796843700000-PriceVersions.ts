import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The price catalogue (src/prices): `price_versions`, each model's prices per kind of token
 * (USD per million, decimal strings in `prices`) from `effectiveAt` on, never changed nor deleted
 * (a trigger refuses it: the history stays); `price_changes`, increases the sync holds for an
 * admin's decision (at most one PENDING per model); `price_source_gaps`, models that left the
 * price source and keep their last price, flagged.
 */
export class PriceVersions1796843700000 implements MigrationInterface {
  name = 'PriceVersions1796843700000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "price_versions" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "modelId" character varying(200) NOT NULL,
      "effectiveAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
      "prices" jsonb NOT NULL,
      "source" character varying(10) NOT NULL,
      "changeId" uuid,
      "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT "PK_price_versions" PRIMARY KEY ("id"),
      CONSTRAINT "CHK_price_versions_source" CHECK ("source" IN ('sync', 'admin')),
      CONSTRAINT "CHK_price_versions_prices" CHECK (jsonb_typeof("prices") = 'object'
        AND "prices" ? 'input' AND "prices" ? 'output'))`);
    await q.query(
      `CREATE INDEX "IDX_price_versions_model" ON "price_versions" ("modelId", "effectiveAt")`,
    );
    await q.query(`CREATE FUNCTION price_versions_immutable() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'price_versions is append-only';
      END $$`);
    await q.query(`CREATE TRIGGER "TRG_price_versions_immutable"
      BEFORE UPDATE OR DELETE ON "price_versions"
      FOR EACH ROW EXECUTE FUNCTION price_versions_immutable()`);
    await q.query(`CREATE TABLE "price_changes" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "modelId" character varying(200) NOT NULL,
      "prices" jsonb NOT NULL,
      "previous" jsonb NOT NULL,
      "increasePercent" numeric NOT NULL,
      "status" character varying(10) NOT NULL DEFAULT 'PENDING',
      "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(),
      "decidedAt" TIMESTAMP(3) WITH TIME ZONE,
      "decidedBy" uuid,
      CONSTRAINT "PK_price_changes" PRIMARY KEY ("id"),
      CONSTRAINT "CHK_price_changes_status"
        CHECK ("status" IN ('PENDING', 'APPROVED', 'REJECTED', 'SUPERSEDED')))`);
    await q.query(`CREATE UNIQUE INDEX "UQ_price_changes_pending" ON "price_changes" ("modelId")
      WHERE "status" = 'PENDING'`);
    await q.query(`CREATE TABLE "price_source_gaps" (
      "modelId" character varying(200) NOT NULL,
      "missingSince" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT "PK_price_source_gaps" PRIMARY KEY ("modelId"))`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "price_source_gaps"`);
    await q.query(`DROP TABLE "price_changes"`);
    await q.query(`DROP TABLE "price_versions"`);
    await q.query(`DROP FUNCTION price_versions_immutable()`);
  }
}
