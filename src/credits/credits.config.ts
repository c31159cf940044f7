import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, Matches, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { emptyToUndefined, toBool, toInt } from '../config/feature-environment';
import { CREDIT_PRICING_MODES, type CreditPricing, type CreditPricingMode } from './token-pricing';

/**
 * Credit holds, their statements' batching, and how a call is priced in credits. The credit
 * prices in USD and CNY are in the shared slice; the purchase limits are billing's.
 */
export class CreditsEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) HOLD_TTL_SECONDS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1000) HOLD_SWEEP_INTERVAL_MS?: number;
  @IsOptional() @Transform(toBool) @IsBoolean() BATCH_STATEMENTS?: boolean;
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(CREDIT_PRICING_MODES)
  CREDIT_PRICING?: CreditPricingMode;
  /** A decimal > 0 (digits, an optional fraction): no sign, no exponent, not zero. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^(?=.*[1-9])\d+(\.\d+)?$/, { message: 'CREDIT_MARKUP must be a decimal > 0' })
  CREDIT_MARKUP?: string;
}

/** The `credits` slice. */
export interface CreditsConfig {
  /** Holds older than this are returned by the sweep (seconds, default 600). */
  holdTtlSeconds: number;
  /**
   * How often an instance without the job queue (JOBS_ENABLED=false) sweeps expired holds on its
   * own timer (ms, default 60000); with the queue the sweep is a job scheduled every minute.
   */
  holdSweepIntervalMs: number;
  /**
   * Natural batching of the admission and the usual settlement (default true): the requests
   * that arrive while one such statement is in flight go together as the next one, each
   * answered on its own; an idle service sends each at once, with no added wait. False sends
   * every request's statement alone.
   */
  batchStatements: boolean;
  /**
   * How a call's credits are computed (CREDIT_PRICING, default `spec`: every token at
   * costPerToken; `tokens`: each kind of token at its catalogue price per 1K, times
   * CREDIT_MARKUP, a decimal string > 0, default `1`). See token-pricing.ts; the modules that
   * price a call read it from CreditPrices.
   */
  pricing: CreditPricing;
}

/** The `credits` slice from validated variables. */
export function buildCreditsConfig(env: CreditsEnvironment): CreditsConfig {
  return {
    holdTtlSeconds: env.HOLD_TTL_SECONDS ?? 600,
    holdSweepIntervalMs: env.HOLD_SWEEP_INTERVAL_MS ?? 60_000,
    batchStatements: env.BATCH_STATEMENTS ?? true,
    pricing: { mode: env.CREDIT_PRICING ?? 'spec', markup: env.CREDIT_MARKUP ?? '1' },
  };
}

/** The `credits` slice, read by its module with `@Inject(creditsConfig.KEY)`. */
export const creditsConfig = defineConfigSlice({
  name: 'credits',
  environment: CreditsEnvironment,
  build: buildCreditsConfig,
});
