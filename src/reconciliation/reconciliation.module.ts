import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BillingModule } from '../billing/billing.module';
import { CreditsModule } from '../credits/credits.module';
import { JobsModule } from '../jobs/jobs.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ProcessorPayments } from './processor-payments';
import { ReconciliationFinding } from './reconciliation-finding.entity';
import { ReconciliationController } from './reconciliation.controller';
import { ReconciliationService } from './reconciliation.service';

/**
 * Payments reconciliation (docs/payments.md#reconciliation): the processor's paid payments
 * against the grants, daily on the job queue or when an admin asks. Owns
 * `reconciliation_findings`; stores paid payments with no grant in the webhooks module's
 * failed events.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([ReconciliationFinding]),
    BillingModule,
    CreditsModule, // whether a grant is keyed by the payment (read only)
    WebhooksModule,
    JobsModule,
  ],
  controllers: [ReconciliationController],
  providers: [ProcessorPayments, ReconciliationService],
})
export class ReconciliationModule {}
