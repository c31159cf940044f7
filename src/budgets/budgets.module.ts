import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { JobsModule } from '../jobs/jobs.module';
import { MailModule } from '../mail/mail.module';
import { BudgetAlertsService } from './budget-alerts.service';
import { KeysModule } from '../keys/keys.module';
import { TeamsModule } from '../teams/teams.module';
import { BudgetLimitsService } from './budget-limits.service';
import { BudgetsService } from './budgets.service';
import { AdminBudgetsController, BudgetsController } from './budgets.controller';
import { KeyInfoController, LimitsController } from './limits.controller';

/**
 * Budgets per user, team, team member and API key over day, week, month, session (`hours`) and
 * `total` windows. The rules run inside credits' admission and settlement statements (migration
 * Budgets); this module owns the tables, who may set what, and the "what is left" reads.
 */
@Module({
  imports: [CreditsModule, TeamsModule, KeysModule, JobsModule, MailModule],
  controllers: [BudgetsController, AdminBudgetsController, LimitsController, KeyInfoController],
  providers: [BudgetsService, BudgetLimitsService, BudgetAlertsService],
  exports: [BudgetsService, BudgetLimitsService, BudgetAlertsService],
})
export class BudgetsModule {}
