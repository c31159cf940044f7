import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the tasks module (scheduled tasks) raises, as `code` in error bodies. */
export enum TasksErrorCode {
  /** The plan's number of scheduled tasks is reached (FREE 2, BASIC 10, PRO 50). */
  TASK_LIMIT_REACHED = 'TASK_LIMIT_REACHED',
  /** Two runs of the schedule are closer than the plan allows (60, 15, 5 minutes). */
  SCHEDULE_TOO_FREQUENT = 'SCHEDULE_TOO_FREQUENT',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const TASKS_ERRORS: ErrorTable<TasksErrorCode> = {
  TASK_LIMIT_REACHED: { status: HttpStatus.CONFLICT },
  SCHEDULE_TOO_FREQUENT: { status: HttpStatus.BAD_REQUEST },
};
