import { Transform } from 'class-transformer';
import { IsInt, IsNumber, IsOptional, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { toInt, toNumber } from '../config/feature-environment';
import type { SharedConfig } from '../config/shared.config';

/** Referral rewards, in credits, and the smallest first payment that earns one. */
export class ReferralsEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) REFERRAL_SIGNUP_BONUS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) REFERRAL_REWARD?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) REFERRAL_MONTHLY_CAP?: number;
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({ maxDecimalPlaces: 2 })
  @Min(0)
  REFERRAL_MIN_PAYMENT?: number;
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({ maxDecimalPlaces: 2 })
  @Min(0)
  REFERRAL_MIN_PAYMENT_CNY?: number;
}

/** The `referrals` slice, in credits. */
export interface ReferralsConfig {
  /** Granted to a referred user once their address is verified (default 0). */
  signupBonus: number;
  /** Granted to the referrer at the referred user's first paid purchase (default 100). */
  reward: number;
  /** Most rewards one referrer earns per calendar month, UTC (default 20). */
  monthlyCap: number;
  /** Smallest first payment, USD major units, that earns the reward (default 5). */
  minPaymentUsd: number;
  /** The same in CNY (default: the USD minimum at CREDITS_PER_USD / CREDITS_PER_CNY). */
  minPaymentCny: number;
}

/**
 * `usd` major units in CNY at the rate the credit prices imply (`creditsPerUsd / creditsPerCny`
 * CNY per USD), rounded up to the fen: 5 USD at 100 and 14 credits is 35.72 CNY.
 */
function cnyEquivalent(usd: number, creditsPerUsd: number, creditsPerCny: number): number {
  return Math.ceil((Math.round(usd * 100) * creditsPerUsd) / creditsPerCny) / 100;
}

/** The `referrals` slice from validated variables and the credit prices. */
export function buildReferralsConfig(
  env: ReferralsEnvironment,
  prices: Pick<SharedConfig, 'creditsPerUsd' | 'creditsPerCny'>,
): ReferralsConfig {
  const minPaymentUsd = env.REFERRAL_MIN_PAYMENT ?? 5;
  return {
    signupBonus: env.REFERRAL_SIGNUP_BONUS ?? 0,
    reward: env.REFERRAL_REWARD ?? 100,
    monthlyCap: env.REFERRAL_MONTHLY_CAP ?? 20,
    minPaymentUsd,
    // Unset: the USD minimum at the credit rates, so both minimums buy the same credits.
    minPaymentCny:
      env.REFERRAL_MIN_PAYMENT_CNY ??
      cnyEquivalent(minPaymentUsd, prices.creditsPerUsd, prices.creditsPerCny),
  };
}

/** The `referrals` slice, read by its module with `@Inject(referralsConfig.KEY)`. */
export const referralsConfig = defineConfigSlice({
  name: 'referrals',
  environment: ReferralsEnvironment,
  build: buildReferralsConfig,
});
