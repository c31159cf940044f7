import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { toInt } from '../config/feature-environment';

/** Redemption codes. */
export class RedemptionEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(100_000) REDEEM_RATE_PER_HOUR?: number;
}

/** The `redemption` slice. */
export interface RedemptionConfig {
  /**
   * REDEEM_RATE_PER_HOUR: redemption attempts (right or wrong) one user, and separately one
   * client address, may make in an hour before 429 RATE_LIMITED (default 10).
   */
  ratePerHour: number;
}

/** The `redemption` slice from validated variables. */
export function buildRedemptionConfig(env: RedemptionEnvironment): RedemptionConfig {
  return { ratePerHour: env.REDEEM_RATE_PER_HOUR ?? 10 };
}

/** The `redemption` slice, read by its module with `@Inject(redemptionConfig.KEY)`. */
export const redemptionConfig = defineConfigSlice({
  name: 'redemption',
  environment: RedemptionEnvironment,
  build: buildRedemptionConfig,
});
