import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ReferralsModule } from '../referrals/referrals.module';
import { UsersModule } from '../users/users.module';
import { AccountTakeoverService } from './account-takeover.service';
import { OAuthFlowService } from './oauth-flow.service';
import { SocialAuthService } from './social-auth.service';

/** What the provider modules share: `validateSocialLogin` and the OAuth sign-in flow. */
@Module({
  imports: [UsersModule, AuthModule, ReferralsModule],
  providers: [SocialAuthService, OAuthFlowService, AccountTakeoverService],
  exports: [SocialAuthService, OAuthFlowService],
})
export class SocialModule {}
