import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsPositive,
  Matches,
  Min,
} from 'class-validator';
import {
  emptyToUndefined,
  featureEnvironment,
  toBool,
  toInt,
  toNumber,
} from '../config/feature-environment';
import { CREDIT_PRICING_MODES, type CreditPricing, type CreditPricingMode } from './token-pricing';

/** Credit holds, their statements' batching, purchase limits and the credit prices in USD and CNY. */
export class CreditsEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) HOLD_TTL_SECONDS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1000) HOLD_SWEEP_INTERVAL_MS?: number;
  @IsOptional() @Transform(toNumber) @IsNumber() @IsPositive() PURCHASE_MAX_USD?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) CREDITS_PER_USD?: number;
  @IsOptional() @Transform(toNumber) @IsNumber() @IsPositive() PURCHASE_MAX_CNY?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) CREDITS_PER_CNY?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) PURCHASE_RECHECK_SECONDS?: number;
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

/** The `credits` slice of AppConfig. */
export interface CreditsConfig {
  /** Holds older than this are returned by the sweep (seconds, default 600). */
  holdTtlSeconds: number;
  /**
   * How often an instance without the job queue (JOBS_ENABLED=false) sweeps expired holds on its
   * own timer (ms, default 60000); with the queue the sweep is a job scheduled every minute.
   */
  holdSweepIntervalMs: number;
  /** Largest single credit purchase, USD (default 1000). */
  purchaseMaxUsd: number;
  /** Most credits one USD may buy (default 100). */
  creditsPerUsd: number;
  /** Largest single credit purchase, CNY (default 7000). */
  purchaseMaxCny: number;
  /** Most credits one CNY may buy (default 14). */
  creditsPerCny: number;
  /** A purchase still pending after this many seconds is checked against Stripe (default 7200). */
  purchaseRecheckSeconds: number;
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
   * CREDIT_MARKUP, a decimal string > 0, default `1`). See token-pricing.ts.
   */
  pricing: CreditPricing;
}

/** The `credits` slice from validated variables. */
export function buildCreditsConfig(env: CreditsEnvironment): CreditsConfig {
  return {
    holdTtlSeconds: env.HOLD_TTL_SECONDS ?? 600,
    holdSweepIntervalMs: env.HOLD_SWEEP_INTERVAL_MS ?? 60_000,
    purchaseMaxUsd: env.PURCHASE_MAX_USD ?? 1000,
    creditsPerUsd: env.CREDITS_PER_USD ?? 100,
    purchaseMaxCny: env.PURCHASE_MAX_CNY ?? 7000,
    creditsPerCny: env.CREDITS_PER_CNY ?? 14,
    purchaseRecheckSeconds: env.PURCHASE_RECHECK_SECONDS ?? 7200,
    batchStatements: env.BATCH_STATEMENTS ?? true,
    pricing: { mode: env.CREDIT_PRICING ?? 'spec', markup: env.CREDIT_MARKUP ?? '1' },
  };
}

/** The `credits` namespace, built alone from process.env (AppModule registers it from AppConfig). */
export const creditsConfig = registerAs('credits', (): CreditsConfig =>
  buildCreditsConfig(featureEnvironment(CreditsEnvironment)),
);
