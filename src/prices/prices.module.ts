import { Module } from '@nestjs/common';
import { ConfigSliceModule } from '../config/config-slice.module';
import { PriceBook } from './price-book.service';
import { pricesConfig } from './prices.config';

/**
 * The price catalogue (docs/ai-and-credits.md#the-price-catalogue): each model's price versions
 * per kind of token, the tariff a call is admitted at, the sync from PRICES_URL and its
 * guardrails. Owns `price_versions`, `price_changes` and `price_source_gaps`.
 */
@Module({
  imports: [ConfigSliceModule.forFeature(pricesConfig)],
  providers: [PriceBook],
  exports: [PriceBook],
})
export class PricesModule {}
