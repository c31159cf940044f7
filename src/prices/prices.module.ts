import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { ConfigSliceModule } from '../config/config-slice.module';
import { JobsModule } from '../jobs/jobs.module';
import { ModelsModule } from '../models/models.module';
import { PriceBook } from './price-book.service';
import { PriceSync } from './price-sync.service';
import { PricesAdminController } from './prices-admin.controller';
import { pricesConfig } from './prices.config';

/**
 * The price catalogue (docs/ai-and-credits.md#the-price-catalogue): each model's price versions
 * per kind of token, the tariff a call is admitted at, the sync from PRICES_URL and its
 * guardrails. Owns `price_versions`, `price_changes` and `price_source_gaps`.
 */
@Module({
  imports: [ConfigSliceModule.forFeature(pricesConfig), ModelsModule, JobsModule, AuditModule],
  controllers: [PricesAdminController],
  providers: [PriceBook, PriceSync],
  exports: [PriceBook],
})
export class PricesModule {}
