import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CreditsModule } from '../credits/credits.module';
import { ReferralRewardsService } from './referral-rewards.service';
import { Referral, ReferralCode } from './referral.entity';
import { ReferralsController } from './referrals.controller';
import { ReferralsService } from './referrals.service';
import { ConfigSliceModule } from '../config/config-slice.module';
import { referralsConfig } from './referrals.config';

/**
 * Referral rewards: codes, the referral fixed at sign-up (auth and social call
 * `attachAtSignup`), and rewards granted and reversed from the payment webhooks.
 */
@Module({
  imports: [
    ConfigSliceModule.forFeature(referralsConfig),
    TypeOrmModule.forFeature([Referral, ReferralCode]),
    CreditsModule,
  ],
  controllers: [ReferralsController],
  providers: [ReferralsService, ReferralRewardsService],
  exports: [ReferralsService, ReferralRewardsService],
})
export class ReferralsModule {}
