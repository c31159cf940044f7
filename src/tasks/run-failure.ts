import type { EntityManager } from 'typeorm';
import { CommonErrorCode } from '../common/errors/app-error';
import { recordOutcome } from './run-outcome';
import { TaskRun } from './task-run.entity';
import type { Task } from './task.entity';

/** A run's error as it is stored and shown: `{code, message}`. */
export interface RunError {
  code: string;
  message: string;
}

/** The error of an unexpected failure (not a business outcome), without internals. */
export function unexpectedRunError(err: unknown): RunError {
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return { code: CommonErrorCode.INTERNAL_ERROR, message: message.slice(0, 500) };
}

/**
 * Ends a run that cannot finish (its job failed for good, or is gone) as `failed` with `error`,
 * keeping the steps it recorded, with the task's failure bookkeeping (recordOutcome). A run that
 * already ended is left alone. Returns true when it was ended here.
 */
export async function failRun(
  manager: EntityManager,
  runId: string,
  error: RunError,
  now: Date,
): Promise<boolean> {
  const run = await manager.findOneBy(TaskRun, { id: runId });
  if (!run || (run.status !== 'queued' && run.status !== 'running')) return false;
  const task = { id: run.taskId } as Task;
  await recordOutcome(
    manager,
    task,
    run,
    { status: 'failed', steps: run.steps, chatId: run.chatId, error },
    now,
  );
  return true;
}
