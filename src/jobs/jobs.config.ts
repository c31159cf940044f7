import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsNumber, IsOptional, Max, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { toBool, toInt, toNumber } from '../config/feature-environment';

/** The job queue (pg-boss) on this instance. */
export class JobsEnvironment {
  @IsOptional() @Transform(toBool) @IsBoolean() JOBS_ENABLED?: boolean;
  @IsOptional() @Transform(toNumber) @IsNumber() @Min(0.5) JOBS_POLL_INTERVAL_SECONDS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) JOBS_SUPERVISE_INTERVAL_SECONDS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(50) JOBS_POOL_SIZE?: number;
}

/** The `jobs` slice: the queue (pg-boss in schema `pgboss` of the service's database). */
export interface JobsConfig {
  /** JOBS_ENABLED (default true): start pg-boss and its workers on this instance. */
  enabled: boolean;
  /** How often an idle worker looks for jobs (seconds, default 2; at least 0.5). */
  pollIntervalSeconds: number;
  /** How often expired or silent jobs are retried and old ones archived (seconds, default 60). */
  superviseIntervalSeconds: number;
  /** Connections of pg-boss's own pool (default 4). */
  poolSize: number;
}

/** The `jobs` slice from validated variables. */
export function buildJobsConfig(env: JobsEnvironment): JobsConfig {
  return {
    enabled: env.JOBS_ENABLED ?? true,
    pollIntervalSeconds: env.JOBS_POLL_INTERVAL_SECONDS ?? 2,
    superviseIntervalSeconds: env.JOBS_SUPERVISE_INTERVAL_SECONDS ?? 60,
    poolSize: env.JOBS_POOL_SIZE ?? 4,
  };
}

/** The `jobs` slice, read by its module with `@Inject(jobsConfig.KEY)`. */
export const jobsConfig = defineConfigSlice({
  name: 'jobs',
  environment: JobsEnvironment,
  build: buildJobsConfig,
});
