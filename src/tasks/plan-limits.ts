import type { Plan } from '../users/user.entity';

/** Limits per plan: how many tasks, and the least time between two runs (docs/tasks.md). */
export interface TaskPlanLimits {
  maxTasks: number;
  minIntervalMinutes: number;
}

export const TASK_PLAN_LIMITS: Record<Plan, TaskPlanLimits> = {
  FREE: { maxTasks: 2, minIntervalMinutes: 60 },
  BASIC: { maxTasks: 10, minIntervalMinutes: 15 },
  PRO: { maxTasks: 50, minIntervalMinutes: 5 },
};

/** Limits of a plan; an unknown plan gets FREE's (as the daily limit does, spec Limits 3). */
export function taskLimits(plan: string): TaskPlanLimits {
  return TASK_PLAN_LIMITS[plan as Plan] ?? TASK_PLAN_LIMITS.FREE;
}

/** Consecutive failed or skipped runs after which a task pauses itself. */
export const AUTO_PAUSE_AFTER = 5;
