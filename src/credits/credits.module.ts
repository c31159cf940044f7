import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigSliceModule } from '../config/config-slice.module';
import { JobsModule } from '../jobs/jobs.module';
import { AdminUsageController } from './admin-usage.controller';
import { AdminUsageService } from './admin-usage.service';
import { CreditHold } from './credit-hold.entity';
import { CreditShortfall } from './credit-shortfall.entity';
import { CreditPrices } from './credit-prices';
import { CreditHoldStatements } from './credit-hold-statements.service';
import { CreditHoldsService } from './credit-holds.service';
import { CreditTransaction } from './credit-transaction.entity';
import { CreditsUsageService } from './credits-usage.service';
import { creditsConfig } from './credits.config';
import { CreditsController } from './credits.controller';
import { CreditsService } from './credits.service';
import { HoldSweep } from './hold-sweep.service';
import { TeamLedgerService } from './team-ledger.service';
import { UsageStatsController, UserUsageStatsController } from './usage-stats.controller';
import { UsageStatsService } from './usage-stats.service';

/**
 * Owns balances, holds and the ledger; other modules change credits only through it. CreditPrices
 * tells the modules that price a call how credits are computed.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([CreditTransaction, CreditHold, CreditShortfall]),
    JobsModule,
    ConfigSliceModule.forFeature(creditsConfig),
  ],
  controllers: [
    CreditsController,
    UsageStatsController,
    UserUsageStatsController,
    AdminUsageController,
  ],
  providers: [
    CreditsService,
    CreditHoldsService,
    CreditHoldStatements,
    CreditsUsageService,
    UsageStatsService,
    AdminUsageService,
    HoldSweep,
    CreditPrices,
    TeamLedgerService,
  ],
  exports: [
    CreditsService,
    CreditHoldsService,
    CreditsUsageService,
    CreditPrices,
    TeamLedgerService,
  ],
})
export class CreditsModule {}
