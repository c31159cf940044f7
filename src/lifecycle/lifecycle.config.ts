import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { toInt } from '../config/feature-environment';

/** The graceful-shutdown window. */
export class LifecycleEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(600_000) SHUTDOWN_GRACE_MS?: number;
}

/** The `lifecycle` slice. */
export interface LifecycleConfig {
  /** SHUTDOWN_GRACE_MS (default 10 000): how long open streams may finish after SIGTERM. */
  shutdownGraceMs: number;
}

/** The `lifecycle` slice from validated variables. */
export function buildLifecycleConfig(env: LifecycleEnvironment): LifecycleConfig {
  return { shutdownGraceMs: env.SHUTDOWN_GRACE_MS ?? 10_000 };
}

/** The `lifecycle` slice, read by its module with `@Inject(lifecycleConfig.KEY)`. */
export const lifecycleConfig = defineConfigSlice({
  name: 'lifecycle',
  environment: LifecycleEnvironment,
  build: buildLifecycleConfig,
});
