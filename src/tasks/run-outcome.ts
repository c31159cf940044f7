import type { EntityManager } from 'typeorm';
import { AUTO_PAUSE_AFTER } from './plan-limits';
import type { RunStatus, StepRecord, TaskRun } from './task-run.entity';
import type { Task } from './task.entity';
import { finishRunSql } from './task-runs.sql';
import { COUNT_FAILURE_SQL, RESET_FAILURES_SQL } from './tasks.sql';

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
    const finish = finishRunSql({
      id: run.id,
      status: result.status,
      finishedAt: now,
      cost,
      chatId: result.chatId,
      errorCode: result.error?.code ?? null,
      errorMessage: result.error?.message ?? null,
      steps: JSON.stringify(result.steps),
    });
    await m.query(finish.sql, finish.params);
    if (result.status === 'cancelled') return;
    if (result.status === 'succeeded') {
      await m.query(RESET_FAILURES_SQL, [task.id]);
      return;
    }
    const reason = result.lostAccess
      ? `The target chat is gone or no longer writable (${result.error?.code ?? 'NOT_FOUND'})`
      : `${AUTO_PAUSE_AFTER} runs in a row failed or were skipped (last: ${result.error?.code ?? 'UNKNOWN_ERROR'})`;
    await m.query(COUNT_FAILURE_SQL, [
      task.id,
      result.lostAccess === true,
      AUTO_PAUSE_AFTER,
      reason,
    ]);
  });
}
