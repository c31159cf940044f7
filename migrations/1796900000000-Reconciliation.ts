import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payments reconciliation (src/reconciliation):
 * - `webhook_failures.reason`: why the event is in the dead-letter table, `handler` (its handler
 *   threw) or `reconciliation` (a paid payment with no grant, found at the processor and stored
 *   as the event that would have granted it, ready to replay).
 * - `reconciliation_findings`: one row per payment and kind of mismatch (`missing_grant`: paid
 *   at the processor, nothing granted; `unpaid_grant`: granted, not paid at the processor).
 *   A second run that finds the same mismatch only moves `lastSeenAt`.
 */
export class Reconciliation1796900000000 implements MigrationInterface {
  name = 'Reconciliation1796900000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE "webhook_failures" ADD "reason" character varying(20) NOT NULL DEFAULT 'handler'`,
    );
    await q.query(`ALTER TABLE "webhook_failures" ADD CONSTRAINT "CHK_webhook_failures_reason"
      CHECK ("reason" IN ('handler', 'reconciliation'))`);
    await q.query(`CREATE TABLE "reconciliation_findings" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "kind" character varying(20) NOT NULL,
      "reference" character varying(255) NOT NULL,
      "eventId" character varying(255),
      "userId" uuid,
      "amount" integer,
      "currency" character varying(3),
      "processorStatus" character varying(40) NOT NULL,
      "firstSeenAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "lastSeenAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_reconciliation_findings" PRIMARY KEY ("id"),
      CONSTRAINT "UQ_reconciliation_findings_kind_reference" UNIQUE ("kind", "reference"),
      CONSTRAINT "CHK_reconciliation_findings_kind" CHECK ("kind" IN ('missing_grant', 'unpaid_grant')))`);
    await q.query(
      `CREATE INDEX "IDX_reconciliation_findings_seen" ON "reconciliation_findings" ("lastSeenAt", "id")`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "reconciliation_findings"`);
    await q.query(`ALTER TABLE "webhook_failures" DROP CONSTRAINT "CHK_webhook_failures_reason"`);
    await q.query(`ALTER TABLE "webhook_failures" DROP COLUMN "reason"`);
  }
}
