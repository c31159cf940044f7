import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TeamsModule } from '../teams/teams.module';
import { UsersModule } from '../users/users.module';
import { BillingController } from './billing.controller';
import { CheckoutPurchasesService } from './checkout-purchases.service';
import { CreditPurchasesService } from './credit-purchases.service';
import { CreditsPurchaseController } from './credits-purchase.controller';
import { PaymentController } from './payment.controller';
import { PaymentsService } from './payments.service';
import { Purchase } from './purchase.entity';
import { PurchasesService } from './purchases.service';
import { StripeClient } from './stripe.client';
import { Subscription } from './subscription.entity';
import { SubscriptionsService } from './subscriptions.service';
import { ConfigSliceModule } from '../config/config-slice.module';
import { billingConfig } from './billing.config';

/**
 * Payments through Stripe: the payment routes, the `subscriptions` table and the one Stripe
 * adapter. Exports what the webhooks module needs.
 */
@Module({
  imports: [
    ConfigSliceModule.forFeature(billingConfig),
    TypeOrmModule.forFeature([Subscription, Purchase]),
    UsersModule,
    TeamsModule, // who may buy for a team's pool
  ],
  controllers: [PaymentController, CreditsPurchaseController, BillingController],
  providers: [
    StripeClient,
    PaymentsService,
    SubscriptionsService,
    CreditPurchasesService,
    PurchasesService,
    CheckoutPurchasesService,
  ],
  exports: [StripeClient, SubscriptionsService, PurchasesService, CheckoutPurchasesService],
})
export class BillingModule {}
