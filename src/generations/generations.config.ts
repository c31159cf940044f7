import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { toInt } from '../config/feature-environment';

/** How long generation records are kept. */
export class GenerationsEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(36_500) GENERATIONS_KEEP_DAYS?: number;
}

export interface GenerationsConfig {
  /** Days a generation record is kept; the daily retention job deletes older ones (default 90). */
  keepDays: number;
}

export function buildGenerationsConfig(env: GenerationsEnvironment): GenerationsConfig {
  return { keepDays: env.GENERATIONS_KEEP_DAYS ?? 90 };
}

/** The `generations` slice, read by its module with `@Inject(generationsConfig.KEY)`. */
export const generationsConfig = defineConfigSlice({
  name: 'generations',
  environment: GenerationsEnvironment,
  build: buildGenerationsConfig,
});
