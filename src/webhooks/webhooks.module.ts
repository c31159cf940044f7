import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BillingModule } from '../billing/billing.module';
import { CreditsModule } from '../credits/credits.module';
import { ReferralsModule } from '../referrals/referrals.module';
import { UsersModule } from '../users/users.module';
import { WalletModule } from '../wallet/wallet.module';
import { CheckoutEventsHandler } from './checkout-events.handler';
import { CreditPurchaseHandler } from './credit-purchase.handler';
import { DisputesHandler } from './disputes.handler';
import { PaymentDispute } from './payment-dispute.entity';
import { PurchaseEventsHandler } from './purchase-events.handler';
import { PurchaseLedger } from './purchase-ledger';
import { WebhookEvent } from './webhook-event.entity';
import { WebhookFailure } from './webhook-failure.entity';
import { WebhookFailuresController } from './webhook-failures.controller';
import { WebhookFailuresService } from './webhook-failures.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/**
 * Processor events: signature check, the `webhook_events` log, their effects (purchases,
 * Checkout Sessions, refunds, disputes, subscriptions, plan grants), and the dead-letter table of failed events with the admin
 * replay.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEvent, WebhookFailure, PaymentDispute]),
    BillingModule,
    CreditsModule,
    UsersModule,
    ReferralsModule,
    WalletModule, // a plan's included credits and failed renewals
  ],
  controllers: [WebhooksController, WebhookFailuresController],
  providers: [
    WebhooksService,
    WebhookFailuresService,
    CreditPurchaseHandler,
    CheckoutEventsHandler,
    PurchaseEventsHandler,
    DisputesHandler,
    PurchaseLedger,
  ],
  exports: [WebhookFailuresService], // the reconciliation stores paid payments with no grant
})
export class WebhooksModule {}
