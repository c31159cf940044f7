import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CreditTransaction } from './credit-transaction.entity';
import { CreditsService } from './credits.service';

/** Owns balances and the ledger; other modules change credits only through CreditsService. */
@Module({
  imports: [TypeOrmModule.forFeature([CreditTransaction])],
  providers: [CreditsService],
  exports: [CreditsService],
})
export class CreditsModule {}
