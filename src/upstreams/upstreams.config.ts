import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { featureEnvironment, toInt } from '../config/feature-environment';

/** How the upstream router cools down an upstream that keeps failing (docs/upstreams.md). */
export class UpstreamsEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) @Max(600_000) UPSTREAM_COOLDOWN_MS?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  UPSTREAM_FAILURES_BEFORE_COOLDOWN?: number;
}

/** The `upstreams` slice of AppConfig. */
export interface UpstreamsConfig {
  /**
   * UPSTREAM_COOLDOWN_MS (default 30000): the first cooldown after repeated failures, in ms;
   * each further cooldown without a success between doubles it, up to `maxCooldownMs`.
   */
  cooldownMs: number;
  /** UPSTREAM_FAILURES_BEFORE_COOLDOWN (default 3): consecutive retryable failures that start one. */
  failuresBeforeCooldown: number;
  /** The longest cooldown, in ms (10 minutes; not configurable). */
  maxCooldownMs: number;
}

/** The `upstreams` slice from validated variables. */
export function buildUpstreamsConfig(env: UpstreamsEnvironment): UpstreamsConfig {
  return {
    cooldownMs: env.UPSTREAM_COOLDOWN_MS ?? 30_000,
    failuresBeforeCooldown: env.UPSTREAM_FAILURES_BEFORE_COOLDOWN ?? 3,
    maxCooldownMs: 600_000,
  };
}

/** The `upstreams` namespace, built alone from process.env (AppModule registers it from AppConfig). */
export const upstreamsConfig = registerAs('upstreams', (): UpstreamsConfig =>
  buildUpstreamsConfig(featureEnvironment(UpstreamsEnvironment)),
);
