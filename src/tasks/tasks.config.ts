import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { toInt } from '../config/feature-environment';

/** Scheduled tasks and their runs. */
export class TasksEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(50) TASKS_CANCEL_POLL_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(10) TASKS_RUN_HEARTBEAT_SECONDS?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  TASKS_MANUAL_RUNS_PER_MINUTE?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  TASKS_RUN_RETRY_DELAY_SECONDS?: number;
}

/** The `tasks` slice. */
export interface TasksConfig {
  /** How often a running run checks whether it was cancelled (ms, default 1000). */
  cancelPollMs: number;
  /** A run's job is retried elsewhere when its worker is silent this long (s, default 30). */
  runHeartbeatSeconds: number;
  /** Manual runs (`POST /api/tasks/{id}/run`) one user may ask for per minute (default 10). */
  manualRunsPerMinute: number;
  /** Seconds before a failed run job's first retry, doubling after (default 5). */
  runRetryDelaySeconds: number;
}

/** The `tasks` slice from validated variables. */
export function buildTasksConfig(env: TasksEnvironment): TasksConfig {
  return {
    cancelPollMs: env.TASKS_CANCEL_POLL_MS ?? 1000,
    runHeartbeatSeconds: env.TASKS_RUN_HEARTBEAT_SECONDS ?? 30,
    manualRunsPerMinute: env.TASKS_MANUAL_RUNS_PER_MINUTE ?? 10,
    runRetryDelaySeconds: env.TASKS_RUN_RETRY_DELAY_SECONDS ?? 5,
  };
}

/** The `tasks` slice, read by its module with `@Inject(tasksConfig.KEY)`. */
export const tasksConfig = defineConfigSlice({
  name: 'tasks',
  environment: TasksEnvironment,
  build: buildTasksConfig,
});
