import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { defineConfigSlice } from '../../config/config-slice';
import { emptyToUndefined, toInt } from '../../config/feature-environment';

/** Second-factor codes: the issuer apps show and the failure lockout. */
export class TwoFactorEnvironment {
  @IsOptional() @Transform(emptyToUndefined) @IsString() @MaxLength(64) TWO_FACTOR_ISSUER?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(1000) TWO_FACTOR_MAX_FAILURES?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(86400) TWO_FACTOR_LOCKOUT_SECONDS?: number;
}

/** The `twoFactor` slice. */
export interface TwoFactorConfig {
  /** Issuer shown by authenticator apps (TWO_FACTOR_ISSUER, default `AI Chat`). */
  issuer: string;
  /** Failed codes per user, and per client IP, before 429 (default 5). */
  maxFailures: number;
  /** How long failures count, and a lockout lasts, in seconds (default 900). */
  lockoutSeconds: number;
}

/** The `twoFactor` slice from validated variables. */
export function buildTwoFactorConfig(env: TwoFactorEnvironment): TwoFactorConfig {
  return {
    issuer: env.TWO_FACTOR_ISSUER ?? 'AI Chat',
    maxFailures: env.TWO_FACTOR_MAX_FAILURES ?? 5,
    lockoutSeconds: env.TWO_FACTOR_LOCKOUT_SECONDS ?? 900,
  };
}

/** The `twoFactor` slice, read by its module with `@Inject(twoFactorConfig.KEY)`. */
export const twoFactorConfig = defineConfigSlice({
  name: 'twoFactor',
  environment: TwoFactorEnvironment,
  build: buildTwoFactorConfig,
});
