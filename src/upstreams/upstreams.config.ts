import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { toInt, toList } from '../config/feature-environment';
import {
  DEFAULT_UPSTREAM_ALLOW,
  UPSTREAM_ADDRESS_CLASSES,
  type UpstreamAddressClass,
} from './upstream-address';

/** How the upstream router cools down an upstream that keeps failing (docs/upstreams.md). */
export class UpstreamsEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) @Max(600_000) UPSTREAM_COOLDOWN_MS?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  UPSTREAM_FAILURES_BEFORE_COOLDOWN?: number;
  @IsOptional()
  @Transform(toList)
  @IsIn(['none', ...UPSTREAM_ADDRESS_CLASSES], {
    each: true,
    message: `UPSTREAM_ALLOW_PRIVATE lists address classes among none, ${UPSTREAM_ADDRESS_CLASSES.join(', ')}`,
  })
  UPSTREAM_ALLOW_PRIVATE?: string[];
}

/** The `upstreams` slice. */
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
  /**
   * UPSTREAM_ALLOW_PRIVATE (default `loopback,private,unique-local`): the non-public address
   * classes an upstream's baseUrl may reach (`none`: public addresses only). Link-local and
   * cloud metadata addresses are refused unless listed (`link-local`, `metadata`).
   */
  allowPrivate: readonly UpstreamAddressClass[];
}

/** The `upstreams` slice from validated variables. */
export function buildUpstreamsConfig(env: UpstreamsEnvironment): UpstreamsConfig {
  return {
    cooldownMs: env.UPSTREAM_COOLDOWN_MS ?? 30_000,
    failuresBeforeCooldown: env.UPSTREAM_FAILURES_BEFORE_COOLDOWN ?? 3,
    maxCooldownMs: 600_000,
    allowPrivate: (env.UPSTREAM_ALLOW_PRIVATE ?? DEFAULT_UPSTREAM_ALLOW).filter(
      (c): c is UpstreamAddressClass => c !== 'none',
    ),
  };
}

/** The `upstreams` slice, read by its module with `@Inject(upstreamsConfig.KEY)`. */
export const upstreamsConfig = defineConfigSlice({
  name: 'upstreams',
  environment: UpstreamsEnvironment,
  build: buildUpstreamsConfig,
});
