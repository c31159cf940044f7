import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The append-only audit log (a trigger refuses UPDATE and DELETE, so a row once
 * committed stays as written) and the dead-letter table of webhook events whose handler failed.
 */
export class AuditAndWebhookFailures1796400000000 implements MigrationInterface {
  name = 'AuditAndWebhookFailures1796400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit_events" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(), "actorId" uuid, "actorType" character varying(10) NOT NULL, "action" character varying(64) NOT NULL, "targetType" character varying(32) NOT NULL, "targetId" character varying(255), "details" jsonb NOT NULL DEFAULT '{}', "requestId" character varying(64), "ip" character varying(64), CONSTRAINT "PK_audit_events" PRIMARY KEY ("id"), CONSTRAINT "CHK_audit_events_actor_type" CHECK ("actorType" IN ('user', 'admin', 'system', 'webhook', 'api_key')))`,
    );
    // The admin list is newest first, filtered by any of actor, target or action.
    await queryRunner.query(`CREATE INDEX "IDX_audit_events_at" ON "audit_events" ("at", "id")`);
    await queryRunner.query(
      `CREATE INDEX "IDX_audit_events_actor" ON "audit_events" ("actorId", "at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_audit_events_target" ON "audit_events" ("targetId", "at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_audit_events_action" ON "audit_events" ("action", "at", "id")`,
    );
    await queryRunner.query(
      `CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = '42501';
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "TRG_audit_events_append_only" BEFORE UPDATE OR DELETE ON "audit_events"
       FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`,
    );
    // TRUNCATE bypasses row triggers; a statement trigger refuses it too.
    await queryRunner.query(
      `CREATE TRIGGER "TRG_audit_events_no_truncate" BEFORE TRUNCATE ON "audit_events"
       FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()`,
    );

    await queryRunner.query(
      `CREATE TABLE "webhook_failures" ("eventId" character varying(255) NOT NULL, "type" character varying(100) NOT NULL, "payload" text NOT NULL, "error" character varying(1000) NOT NULL, "attempts" integer NOT NULL DEFAULT 1, "firstAttemptAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "lastAttemptAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_webhook_failures" PRIMARY KEY ("eventId"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_failures_last" ON "webhook_failures" ("lastAttemptAt", "eventId")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "webhook_failures"`);
    await queryRunner.query(`DROP TABLE "audit_events"`);
    await queryRunner.query(`DROP FUNCTION audit_events_append_only()`);
  }
}
