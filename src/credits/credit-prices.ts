import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { creditsConfig } from './credits.config';
import type { CreditPricing } from './token-pricing';

/**
 * How this service prices a call in credits (CREDIT_PRICING and CREDIT_MARKUP, the credits
 * slice's), for the modules that price calls: they pass `pricing` to `cost`, `estimate` and
 * `worstCase` (pricing.ts) and never read the credits slice themselves.
 */
@Injectable()
export class CreditPrices {
  readonly pricing: CreditPricing;

  constructor(@Inject(creditsConfig.KEY) credits: ConfigType<typeof creditsConfig>) {
    this.pricing = credits.pricing;
  }
}
