import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BillingModule } from '../billing/billing.module';
import { CreditsModule } from '../credits/credits.module';
import { ReferralsModule } from '../referrals/referrals.module';
import { UsersModule } from '../users/users.module';
import { CreditPurchaseHandler } from './credit-purchase.handler';
import { PurchaseEventsHandler } from './purchase-events.handler';
import { WebhookEvent } from './webhook-event.entity';
import { WebhookFailure } from './webhook-failure.entity';
import { WebhookFailuresController } from './webhook-failures.controller';
import { WebhookFailuresService } from './webhook-failures.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/**
 * Processor events: signature check, the `webhook_events` log, their effects, and the
 * dead-letter table of failed events with the admin replay (issue 19 §4).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEvent, WebhookFailure]),
    BillingModule,
    CreditsModule,
    UsersModule,
    ReferralsModule,
  ],
  controllers: [WebhooksController, WebhookFailuresController],
  providers: [
    WebhooksService,
    WebhookFailuresService,
    CreditPurchaseHandler,
    PurchaseEventsHandler,
  ],
})
export class WebhooksModule {}
