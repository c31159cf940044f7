import { SqlParams, type SqlStatement } from '../database/sql-params';

// The raw statements on `task_runs`, beside the task runner, scheduler, sweep and TaskRunsService.

/**
 * Records the end of run `id`: its status, finish time, cost (credits), chat, error (code and
 * message, or null) and steps (JSON text).
 */
export function finishRunSql(run: {
  id: string;
  status: string;
  finishedAt: Date;
  cost: number;
  chatId: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  steps: string;
}): SqlStatement {
  const p = new SqlParams();
  const sql = `UPDATE task_runs SET status = ${p.add(run.status)}, "finishedAt" = ${p.add(run.finishedAt)}, cost = ${p.add(run.cost)}, "chatId" = ${p.add(run.chatId)},
         "errorCode" = ${p.add(run.errorCode)}, "errorMessage" = ${p.add(run.errorMessage)}, steps = ${p.add(run.steps)}
       WHERE id = ${p.add(run.id)}`;
  return { sql, params: p.values };
}

/**
 * Starts run $1 at $2 (a retried run keeps its first start); only a queued or running run, so a
 * finished or cancelled one is never run again. Returns `id`, no row otherwise.
 */
export const START_RUN_SQL = `UPDATE task_runs SET status = 'running', "startedAt" = COALESCE("startedAt", $2)
       WHERE id = $1 AND status IN ('queued', 'running') RETURNING id`;

/** `{cancelRequested}` of run $1. */
export const CANCEL_REQUESTED_SQL = `SELECT "cancelRequested" FROM task_runs WHERE id = $1`;

/**
 * Cancels run $1 at $2 while it is still queued (conditional: affected count 0 once it started
 * or finished).
 */
export const CANCEL_QUEUED_RUN_SQL = `UPDATE task_runs SET status = 'cancelled', "cancelRequested" = true, "finishedAt" = $2
       WHERE id = $1 AND status = 'queued' RETURNING id`;

/** Asks running run $1 to stop (affected count 0 unless it is running); the runner polls it. */
export const REQUEST_CANCEL_SQL = `UPDATE task_runs SET "cancelRequested" = true WHERE id = $1 AND status = 'running' RETURNING id`;

/**
 * Queues the scheduled run of task $1 of user $2 for due time $3; returns `id`, no row when that
 * due time has a run already (one run per task and due time).
 */
export const INSERT_SCHEDULED_RUN_SQL = `INSERT INTO task_runs ("taskId", "userId", trigger, "scheduledFor")
           VALUES ($1, $2, 'schedule', $3) ON CONFLICT DO NOTHING RETURNING id`;

/** `{id}` of up to $2 runs still queued $1 seconds after they were created, oldest first. */
export const LOST_QUEUED_RUNS_SQL = `SELECT id FROM task_runs WHERE status = 'queued' AND "createdAt" < now() - make_interval(secs => $1)
       ORDER BY "createdAt" LIMIT $2`;

/** `{id}` of up to $2 runs `running` since more than $1 seconds, oldest start first. */
export const STALE_RUNNING_RUNS_SQL = `SELECT id FROM task_runs WHERE status = 'running'
         AND "startedAt" < now() - make_interval(secs => $1)
       ORDER BY "startedAt" LIMIT $2`;
