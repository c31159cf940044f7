import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BillingModule } from '../billing/billing.module';
import { ConfigSliceModule } from '../config/config-slice.module';
import { CreditsModule } from '../credits/credits.module';
import { MailModule } from '../mail/mail.module';
import { TeamsModule } from '../teams/teams.module';
import { UsersModule } from '../users/users.module';
import { CheckoutService } from './checkout.service';
import { CreditPackRow } from './credit-pack.entity';
import { CreditPacksAdminController } from './credit-packs-admin.controller';
import { CreditPacksService } from './credit-packs.service';
import { PlanGrantsService } from './plan-grants.service';
import { walletConfig } from './wallet.config';
import { BillingCheckoutController, CreditPacksController } from './wallet.controller';

/**
 * The wallet: credit packs (CREDIT_PACKS and the admins' edits), Stripe Checkout for packs and
 * plans, the customer portal, and a plan's included credits per paid period. Grants go through
 * CreditsService; the webhooks module calls PlanGrantsService in the event's transaction.
 */
@Module({
  imports: [
    ConfigSliceModule.forFeature(walletConfig),
    TypeOrmModule.forFeature([CreditPackRow]),
    BillingModule,
    CreditsModule,
    TeamsModule,
    UsersModule,
    MailModule,
  ],
  controllers: [CreditPacksController, BillingCheckoutController, CreditPacksAdminController],
  providers: [CreditPacksService, CheckoutService, PlanGrantsService],
  exports: [PlanGrantsService],
})
export class WalletModule {}
