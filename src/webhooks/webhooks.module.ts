import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BillingModule } from '../billing/billing.module';
import { CreditsModule } from '../credits/credits.module';
import { ReferralsModule } from '../referrals/referrals.module';
import { UsersModule } from '../users/users.module';
import { CreditPurchaseHandler } from './credit-purchase.handler';
import { PurchaseEventsHandler } from './purchase-events.handler';
import { WebhookEvent } from './webhook-event.entity';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Processor events: signature check, the `webhook_events` log, and their effects. */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEvent]),
    BillingModule,
    CreditsModule,
    UsersModule,
    ReferralsModule,
  ],
  controllers: [WebhooksController],
  providers: [WebhooksService, CreditPurchaseHandler, PurchaseEventsHandler],
})
export class WebhooksModule {}
