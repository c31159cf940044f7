// The raw statements on `tasks` (and the owner's row), beside TasksService, the scheduler and
// the run outcome.

/** Locks user $1's row until the transaction ends: task creations of one user take turns. */
export const LOCK_OWNER_SQL = 'SELECT id FROM users WHERE id = $1 FOR UPDATE';

/** A run of task $1 succeeded: its failure streak ends. */
export const RESET_FAILURES_SQL = `UPDATE tasks SET "consecutiveFailures" = 0 WHERE id = $1`;

/**
 * A run of task $1 failed or was skipped: the streak grows by one, and the task is paused
 * (disabled, no next run, reason $4) when $2 (boolean: its target is gone or no longer
 * writable) or when the streak reaches $3 (AUTO_PAUSE_AFTER).
 */
export const COUNT_FAILURE_SQL = `UPDATE tasks SET "consecutiveFailures" = "consecutiveFailures" + 1,
         enabled = CASE WHEN $2 OR "consecutiveFailures" + 1 >= $3 THEN false ELSE enabled END,
         "nextRunAt" = CASE WHEN $2 OR "consecutiveFailures" + 1 >= $3 THEN NULL ELSE "nextRunAt" END,
         "pausedReason" = CASE WHEN $2 OR "consecutiveFailures" + 1 >= $3 THEN $4 ELSE "pausedReason" END
       WHERE id = $1`;

/** `{id, userId, cron, timezone, nextRunAt}` of up to $2 enabled tasks due at $1, earliest first. */
export const DUE_TASKS_SQL = `SELECT id, "userId", cron, timezone, "nextRunAt" FROM tasks
         WHERE enabled AND "nextRunAt" <= $1 ORDER BY "nextRunAt" LIMIT $2`;

/**
 * Claims due time $2 of task $1 by moving its next run to $3; conditional on the due time, so of
 * several instances one claims it (affected count 1) and the others none.
 */
export const CLAIM_DUE_TASK_SQL = `UPDATE tasks SET "nextRunAt" = $3 WHERE id = $1 AND enabled AND "nextRunAt" = $2 RETURNING id`;
