import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, IsUrl } from 'class-validator';
import { emptyToUndefined, featureEnvironment, HTTP_URL } from '../config/feature-environment';

/** Stripe: keys, the plans' price ids and an optional local API base. */
export class BillingEnvironment {
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_SECRET_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_PUBLISHABLE_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_WEBHOOK_SECRET?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_PRICE_BASIC?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STRIPE_PRICE_PRO?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) STRIPE_API_BASE?: string;
}

/** The `stripe` slice of AppConfig. */
export interface StripeConfig {
  secretKey?: string;
  publishableKey?: string;
  webhookSecret?: string;
  /** Price ids by plan. */
  prices: { BASIC?: string; PRO?: string };
  /** Local base such as `http://127.0.0.1:12111` (tests). */
  apiBase?: string;
}

/** The `stripe` slice from validated variables. */
export function buildStripeConfig(env: BillingEnvironment): StripeConfig {
  return {
    secretKey: env.STRIPE_SECRET_KEY,
    publishableKey: env.STRIPE_PUBLISHABLE_KEY,
    webhookSecret: env.STRIPE_WEBHOOK_SECRET,
    prices: { BASIC: env.STRIPE_PRICE_BASIC, PRO: env.STRIPE_PRICE_PRO },
    apiBase: env.STRIPE_API_BASE,
  };
}

/** The `stripe` namespace, built alone from process.env (AppModule registers it from AppConfig). */
export const stripeConfig = registerAs('stripe', (): StripeConfig =>
  buildStripeConfig(featureEnvironment(BillingEnvironment)),
);
