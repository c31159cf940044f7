import { Transform } from 'class-transformer';
import { IsInt, IsNumber, IsOptional, IsPositive, IsString, IsUrl, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { emptyToUndefined, HTTP_URL, toInt, toNumber } from '../config/feature-environment';

/**
 * Stripe (keys, the plans' price ids, an optional local API base) and the limits of a credit
 * purchase. The credit prices (CREDITS_PER_USD, CREDITS_PER_CNY) are in the shared slice.
 */
export class BillingEnvironment {
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_SECRET_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_PUBLISHABLE_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_WEBHOOK_SECRET?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_PRICE_BASIC?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_PRICE_PRO?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) STRIPE_API_BASE?: string;
  @IsOptional() @Transform(toNumber) @IsNumber() @IsPositive() PURCHASE_MAX_USD?: number;
  @IsOptional() @Transform(toNumber) @IsNumber() @IsPositive() PURCHASE_MAX_CNY?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) PURCHASE_RECHECK_SECONDS?: number;
}

/** Stripe's settings, in the `billing` slice. */
export interface StripeConfig {
  secretKey?: string;
  publishableKey?: string;
  webhookSecret?: string;
  /** Price ids by plan. */
  prices: { BASIC?: string; PRO?: string };
  /** Local base such as `http://127.0.0.1:12111` (tests). */
  apiBase?: string;
}

/** The `billing` slice. */
export interface BillingConfig {
  stripe: StripeConfig;
  /** Largest single credit purchase, USD (PURCHASE_MAX_USD, default 1000). */
  purchaseMaxUsd: number;
  /** Largest single credit purchase, CNY (PURCHASE_MAX_CNY, default 7000). */
  purchaseMaxCny: number;
  /** A purchase still pending after this many seconds is checked against Stripe (default 7200). */
  purchaseRecheckSeconds: number;
}

/** The `billing` slice from validated variables. */
export function buildBillingConfig(env: BillingEnvironment): BillingConfig {
  return {
    stripe: {
      secretKey: env.STRIPE_SECRET_KEY,
      publishableKey: env.STRIPE_PUBLISHABLE_KEY,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET,
      prices: { BASIC: env.STRIPE_PRICE_BASIC, PRO: env.STRIPE_PRICE_PRO },
      apiBase: env.STRIPE_API_BASE,
    },
    purchaseMaxUsd: env.PURCHASE_MAX_USD ?? 1000,
    purchaseMaxCny: env.PURCHASE_MAX_CNY ?? 7000,
    purchaseRecheckSeconds: env.PURCHASE_RECHECK_SECONDS ?? 7200,
  };
}

/** The `billing` slice, read by its module with `@Inject(billingConfig.KEY)`. */
export const billingConfig = defineConfigSlice({
  name: 'billing',
  environment: BillingEnvironment,
  build: buildBillingConfig,
});
