import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min, MinLength, ValidateIf } from 'class-validator';
import {
  emptyToUndefined,
  featureEnvironment,
  toInt,
  type WithNodeEnv,
} from '../config/feature-environment';

/** Operations: who may read /metrics, on which port, and the graceful-shutdown window. */
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
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(600_000) SHUTDOWN_GRACE_MS?: number;
}

/** The `ops` slice of AppConfig: Prometheus metrics and graceful shutdown. */
export interface OpsConfig {
  /** Bearer token of /metrics (METRICS_TOKEN); undefined: none asked. */
  metricsToken?: string;
  /** METRICS_PORT: metrics on this port only (not on the API port); 0 picks a free one. */
  metricsPort?: number;
  /** SHUTDOWN_GRACE_MS (default 10 000): how long open streams may finish after SIGTERM. */
  shutdownGraceMs: number;
}

/** The `ops` slice from validated variables. */
export function buildOpsConfig(env: OpsEnvironment): OpsConfig {
  return {
    metricsToken: env.METRICS_TOKEN,
    metricsPort: env.METRICS_PORT,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS ?? 10_000,
  };
}

/** The `ops` namespace, built alone from process.env (AppModule registers it from AppConfig). */
export const opsConfig = registerAs('ops', (): OpsConfig =>
  buildOpsConfig(featureEnvironment(OpsEnvironment)),
);
