import { Transform } from 'class-transformer';
import { IsInt, IsNumber, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import {
  emptyToUndefined,
  HTTP_URL,
  list,
  SetTogether,
  toInt,
  toNumber,
} from '../config/feature-environment';

const DECIMAL = /^\d+(\.\d+)?$/;
/** `PLAN=decimal` pairs, comma-separated: `BASIC=1.3,PRO=1.1`. */
const PLAN_MARKUPS =
  /^\s*[A-Za-z_][\w-]*\s*=\s*(?=[\d.]*[1-9])\d+(\.\d+)?\s*(,\s*[A-Za-z_][\w-]*\s*=\s*(?=[\d.]*[1-9])\d+(\.\d+)?\s*)*$/;

/** The price catalogue: its sync source and guardrails, the fallback price, markups per plan. */
export class PricesEnvironment {
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) PRICES_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() PRICE_SYNC_CRON?: string;
  @IsOptional()
  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  @Max(10_000)
  PRICE_SYNC_MAX_INCREASE?: number;
  @SetTogether('PRICE_FALLBACK_INPUT', 'PRICE_FALLBACK_OUTPUT')
  @Matches(DECIMAL, { message: 'PRICE_FALLBACK_INPUT must be a decimal (USD per million tokens)' })
  PRICE_FALLBACK_INPUT?: string;
  @SetTogether('PRICE_FALLBACK_INPUT', 'PRICE_FALLBACK_OUTPUT')
  @Matches(DECIMAL, { message: 'PRICE_FALLBACK_OUTPUT must be a decimal (USD per million tokens)' })
  PRICE_FALLBACK_OUTPUT?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(PLAN_MARKUPS, {
    message: 'CREDIT_MARKUP_PLANS must be PLAN=decimal > 0 pairs, comma-separated',
  })
  CREDIT_MARKUP_PLANS?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(3600) PRICES_REFRESH_SECONDS?: number;
}

/** The `prices` slice (docs/ai-and-credits.md#the-price-catalogue). */
export interface PricesConfig {
  /**
   * PRICES_URL: a price list in LiteLLM's `model_prices_and_context_window.json` format, read by
   * the sync job; unset: no sync (prices come from the catalogue and admins only).
   */
  url?: string;
  /** PRICE_SYNC_CRON: when the sync job runs (cron, default `17 * * * *`: hourly). */
  syncCron: string;
  /**
   * PRICE_SYNC_MAX_INCREASE: the largest increase of any kind's price, in percent, that the sync
   * applies at once (default 25); a larger one waits for an admin's approval.
   */
  maxIncreasePercent: number;
  /**
   * PRICE_FALLBACK_INPUT and PRICE_FALLBACK_OUTPUT (USD per million tokens, set together): the
   * price of a model that has no price of its own. Unset: such a model is refused with
   * MODEL_NOT_PRICED (CREDIT_PRICING=tokens), never billed 0.
   */
  fallback?: { input: string; output: string };
  /**
   * CREDIT_MARKUP_PLANS: the markup of each named plan (`BASIC=1.3,PRO=1.1`), over
   * CREDIT_MARKUP, the default of every other plan.
   */
  planMarkups: Record<string, string>;
  /**
   * PRICES_REFRESH_SECONDS: how old this instance's copy of the price versions may grow before it
   * is read again (default 30; 0 reads it at every admission). Changes made on this instance
   * apply at once.
   */
  refreshSeconds: number;
}

/** `BASIC=1.3,PRO=1.1` → `{BASIC: '1.3', PRO: '1.1'}` (plan names upper-cased). */
export function parsePlanMarkups(value?: string): Record<string, string> {
  return Object.fromEntries(
    list(value).map((pair) => {
      const [plan, markup] = pair.split('=').map((s) => s.trim());
      return [plan.toUpperCase(), markup];
    }),
  );
}

/** The `prices` slice from validated variables. */
export function buildPricesConfig(env: PricesEnvironment): PricesConfig {
  return {
    url: env.PRICES_URL,
    syncCron: env.PRICE_SYNC_CRON ?? '17 * * * *',
    maxIncreasePercent: env.PRICE_SYNC_MAX_INCREASE ?? 25,
    fallback:
      env.PRICE_FALLBACK_INPUT && env.PRICE_FALLBACK_OUTPUT
        ? { input: env.PRICE_FALLBACK_INPUT, output: env.PRICE_FALLBACK_OUTPUT }
        : undefined,
    planMarkups: parsePlanMarkups(env.CREDIT_MARKUP_PLANS),
    refreshSeconds: env.PRICES_REFRESH_SECONDS ?? 30,
  };
}

/** The `prices` slice, read by its module with `@Inject(pricesConfig.KEY)`. */
export const pricesConfig = defineConfigSlice({
  name: 'prices',
  environment: PricesEnvironment,
  build: buildPricesConfig,
});
