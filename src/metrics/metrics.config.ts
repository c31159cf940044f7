import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min, MinLength, ValidateIf } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { emptyToUndefined, toInt, type WithNodeEnv } from '../config/feature-environment';

/** Operations: who may read /metrics, and on which port. */
export class OpsEnvironment implements WithNodeEnv {
  /** Read for the production rule; validated by AppEnvironment. */
  NODE_ENV?: string;
  /** The bearer token of /metrics; in production it or METRICS_PORT is required. */
  @ValidateIf(
    (o: OpsEnvironment) =>
      (o.NODE_ENV === 'production' && o.METRICS_PORT === undefined) ||
      o.METRICS_TOKEN !== undefined,
  )
  @Transform(emptyToUndefined)
  @IsString({ message: 'METRICS_TOKEN or METRICS_PORT is required in production' })
  @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  METRICS_TOKEN?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) METRICS_PORT?: number;
}

/** The `ops` slice: Prometheus metrics. */
export interface OpsConfig {
  /** Bearer token of /metrics (METRICS_TOKEN); undefined: none asked. */
  metricsToken?: string;
  /** METRICS_PORT: metrics on this port only (not on the API port); 0 picks a free one. */
  metricsPort?: number;
}

/** The `ops` slice from validated variables. */
export function buildOpsConfig(env: OpsEnvironment): OpsConfig {
  return {
    metricsToken: env.METRICS_TOKEN,
    metricsPort: env.METRICS_PORT,
  };
}

/** The `ops` slice, read by its module with `@Inject(opsConfig.KEY)`. */
export const opsConfig = defineConfigSlice({
  name: 'ops',
  environment: OpsEnvironment,
  build: buildOpsConfig,
});
