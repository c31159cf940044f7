import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, IsUrl, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { emptyToUndefined, toBool, toInt } from '../config/feature-environment';

/**
 * Sign-in rate limits (and where their counters live) and e-mail rules. The secrets, the session
 * lifetime and the sign-up grant (SIGNUP_CREDITS) are in the shared slice
 * (src/config/shared.config.ts).
 */
export class AuthEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) AUTH_RATE_LIMIT_PER_MINUTE?: number;
  /** Shared rate-limit counters for several instances; unset → per-instance memory. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false, require_protocol: true })
  REDIS_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() REDIS_KEY_PREFIX?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() REQUIRE_EMAIL_VERIFICATION?: boolean;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) EMAIL_CHANGE_PER_DAY?: number;
}

/** The `auth` slice. */
export interface AuthConfig {
  rateLimitPerMinute: number;
  /** Redis holding the rate-limit counters of all instances (REDIS_URL); undefined: memory. */
  redisUrl?: string;
  /** Prefix of those Redis keys (REDIS_KEY_PREFIX, default `throttler:`). */
  redisKeyPrefix: string;
  /** REQUIRE_EMAIL_VERIFICATION (default false): password login of an unverified address is 403. */
  requireEmailVerification: boolean;
  /**
   * Email change requests one account may make in 24 hours (EMAIL_CHANGE_PER_DAY, default 5):
   * each mails a link to an address of the requester's choosing.
   */
  emailChangePerDay: number;
}

/** The `auth` slice from validated variables. */
export function buildAuthConfig(env: AuthEnvironment): AuthConfig {
  return {
    rateLimitPerMinute: env.AUTH_RATE_LIMIT_PER_MINUTE ?? 10,
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? 'throttler:',
    requireEmailVerification: env.REQUIRE_EMAIL_VERIFICATION ?? false,
    emailChangePerDay: env.EMAIL_CHANGE_PER_DAY ?? 5,
  };
}

/** The `auth` slice, read by its module with `@Inject(authConfig.KEY)`. */
export const authConfig = defineConfigSlice({
  name: 'auth',
  environment: AuthEnvironment,
  build: buildAuthConfig,
});
