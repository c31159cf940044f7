import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../jobs/jobs.module';
import { CreditHold } from './credit-hold.entity';
import { CreditShortfall } from './credit-shortfall.entity';
import { CreditHoldStatements } from './credit-hold-statements.service';
import { CreditHoldsService } from './credit-holds.service';
import { CreditTransaction } from './credit-transaction.entity';
import { CreditsUsageService } from './credits-usage.service';
import { CreditsController } from './credits.controller';
import { CreditsService } from './credits.service';
import { HoldSweep } from './hold-sweep.service';
import { TeamLedgerService } from './team-ledger.service';
import { UsageStatsController, UserUsageStatsController } from './usage-stats.controller';
import { UsageStatsService } from './usage-stats.service';

/** Owns balances, holds and the ledger; other modules change credits only through it. */
@Module({
  imports: [TypeOrmModule.forFeature([CreditTransaction, CreditHold, CreditShortfall]), JobsModule],
  controllers: [CreditsController, UsageStatsController, UserUsageStatsController],
  providers: [
    CreditsService,
    CreditHoldsService,
    CreditHoldStatements,
    CreditsUsageService,
    UsageStatsService,
    HoldSweep,
    TeamLedgerService,
  ],
  exports: [CreditsService, CreditHoldsService, CreditsUsageService, TeamLedgerService],
})
export class CreditsModule {}
