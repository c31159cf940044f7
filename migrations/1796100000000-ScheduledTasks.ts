import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Scheduled tasks and their runs. `nextRunAt` is the one claim point of the scheduler
 * (a conditional UPDATE moves it forward, so one instance wins each due time); the unique
 * (taskId, scheduledFor) makes a scheduled time run at most once even if two claims raced.
 * pg-boss keeps its own tables in schema `pgboss`, created by pg-boss itself at start.
 */
export class ScheduledTasks1796100000000 implements MigrationInterface {
  name = 'ScheduledTasks1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "tasks" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "userId" uuid NOT NULL,
        "name" character varying(100) NOT NULL,
        "cron" character varying(100) NOT NULL,
        "timezone" character varying(64) NOT NULL,
        "prompt" jsonb NOT NULL,
        "targetMode" character varying(10) NOT NULL,
        "targetChatId" uuid,
        "enabled" boolean NOT NULL DEFAULT true,
        "pausedReason" character varying(300),
        "nextRunAt" TIMESTAMP(3) WITH TIME ZONE,
        "consecutiveFailures" integer NOT NULL DEFAULT 0,
        "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        "updatedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_tasks" PRIMARY KEY ("id"),
        CONSTRAINT "CHK_tasks_target_mode" CHECK ("targetMode" IN ('new_chat', 'append')),
        CONSTRAINT "FK_tasks_user" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE
      )`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_tasks_user" ON "tasks" ("userId", "createdAt")`);
    await queryRunner.query(
      `CREATE INDEX "IDX_tasks_due" ON "tasks" ("nextRunAt") WHERE "enabled" AND "nextRunAt" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "task_runs" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "taskId" uuid NOT NULL,
        "userId" uuid NOT NULL,
        "trigger" character varying(10) NOT NULL,
        "scheduledFor" TIMESTAMP(3) WITH TIME ZONE,
        "input" text,
        "status" character varying(10) NOT NULL DEFAULT 'queued',
        "cancelRequested" boolean NOT NULL DEFAULT false,
        "startedAt" TIMESTAMP(3) WITH TIME ZONE,
        "finishedAt" TIMESTAMP(3) WITH TIME ZONE,
        "cost" integer NOT NULL DEFAULT 0,
        "chatId" uuid,
        "errorCode" character varying(50),
        "errorMessage" text,
        "steps" jsonb NOT NULL DEFAULT '[]',
        "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_task_runs" PRIMARY KEY ("id"),
        CONSTRAINT "CHK_task_runs_status" CHECK ("status" IN ('queued', 'running', 'succeeded', 'failed', 'skipped', 'cancelled')),
        CONSTRAINT "CHK_task_runs_trigger" CHECK ("trigger" IN ('schedule', 'manual')),
        CONSTRAINT "FK_task_runs_task" FOREIGN KEY ("taskId") REFERENCES "tasks"("id") ON DELETE CASCADE
      )`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_task_runs_task" ON "task_runs" ("taskId", "createdAt" DESC, "id" DESC)`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_task_runs_scheduled" ON "task_runs" ("taskId", "scheduledFor") WHERE "scheduledFor" IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "task_runs"`);
    await queryRunner.query(`DROP TABLE "tasks"`);
  }
}
