import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CreditHold } from './credit-hold.entity';
import { CreditHoldsService } from './credit-holds.service';
import { CreditTransaction } from './credit-transaction.entity';
import { CreditsUsageService } from './credits-usage.service';
import { CreditsController } from './credits.controller';
import { CreditsService } from './credits.service';

/** Owns balances, holds and the ledger; other modules change credits only through it. */
@Module({
  imports: [TypeOrmModule.forFeature([CreditTransaction, CreditHold])],
  controllers: [CreditsController],
  providers: [CreditsService, CreditHoldsService, CreditsUsageService],
  exports: [CreditsService, CreditHoldsService, CreditsUsageService],
})
export class CreditsModule {}
