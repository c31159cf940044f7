import type { EntityManager } from 'typeorm';
import { AUTO_PAUSE_AFTER } from './plan-limits';
import type { RunStatus, StepRecord, TaskRun } from './task-run.entity';
import type { Task } from './task.entity';

/** How a run ended, as TaskRunner found it. */
export interface RunResult {
  status: Exclude<RunStatus, 'queued' | 'running'>;
  steps: StepRecord[];
  chatId: string | null;
  error: { code: string; message: string } | null;
  /** The target chat is gone or no longer writable: the task pauses at once. */
  lostAccess?: boolean;
}

/**
 * Writes a run's end and the task's bookkeeping in one transaction: a success
 * resets the failure count; a failure or skip adds one, and the fifth in a row (or a lost target
 * chat) pauses the task with `pausedReason`. A cancelled run changes neither.
 */
export async function recordOutcome(
  manager: EntityManager,
  task: Task,
  run: TaskRun,
  result: RunResult,
  now: Date,
): Promise<void> {
  const cost = result.steps.reduce((n, s) => n + s.cost, 0);
  await manager.transaction(async (m) => {
    await m.query(
      `UPDATE task_runs SET status = $2, "finishedAt" = $3, cost = $4, "chatId" = $5,
         "errorCode" = $6, "errorMessage" = $7, steps = $8
       WHERE id = $1`,
      [
        run.id,
        result.status,
        now,
        cost,
        result.chatId,
        result.error?.code ?? null,
        result.error?.message ?? null,
        JSON.stringify(result.steps),
      ],
    );
    if (result.status === 'cancelled') return;
    if (result.status === 'succeeded') {
      await m.query(`UPDATE tasks SET "consecutiveFailures" = 0 WHERE id = $1`, [task.id]);
      return;
    }
    const reason = result.lostAccess
      ? `The target chat is gone or no longer writable (${result.error?.code ?? 'NOT_FOUND'})`
      : `${AUTO_PAUSE_AFTER} runs in a row failed or were skipped (last: ${result.error?.code ?? 'UNKNOWN_ERROR'})`;
    await m.query(
      `UPDATE tasks SET "consecutiveFailures" = "consecutiveFailures" + 1,
         enabled = CASE WHEN $2 OR "consecutiveFailures" + 1 >= $3 THEN false ELSE enabled END,
         "nextRunAt" = CASE WHEN $2 OR "consecutiveFailures" + 1 >= $3 THEN NULL ELSE "nextRunAt" END,
         "pausedReason" = CASE WHEN $2 OR "consecutiveFailures" + 1 >= $3 THEN $4 ELSE "pausedReason" END
       WHERE id = $1`,
      [task.id, result.lostAccess === true, AUTO_PAUSE_AFTER, reason],
    );
  });
}
