import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { KeysModule } from '../keys/keys.module';
import { TeamsModule } from '../teams/teams.module';
import { BudgetLimitsService } from './budget-limits.service';
import { BudgetsService } from './budgets.service';

/**
 * Budgets per user, team, team member and API key over day, week, month, session (`hours`) and
 * `total` windows. The rules run inside credits' admission and settlement statements (migration
 * Budgets); this module owns the tables, who may set what, and the "what is left" reads.
 */
@Module({
  imports: [CreditsModule, TeamsModule, KeysModule],
  providers: [BudgetsService, BudgetLimitsService],
  exports: [BudgetsService, BudgetLimitsService],
})
export class BudgetsModule {}
