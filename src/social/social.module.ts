import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ConfigSliceModule } from '../config/config-slice.module';
import { ReferralsModule } from '../referrals/referrals.module';
import { UsersModule } from '../users/users.module';
import { AccountTakeoverService } from './account-takeover.service';
import { OAuthFlowService } from './oauth-flow.service';
import { SignInOptionsController } from './sign-in-options.controller';
import { oauthConfig } from './social.config';
import { SocialAuthService } from './social-auth.service';

/**
 * What the provider modules share: `validateSocialLogin`, the OAuth sign-in flow, and the list
 * of sign-in methods (`GET /api/auth/providers`).
 */
@Module({
  imports: [ConfigSliceModule.forFeature(oauthConfig), UsersModule, AuthModule, ReferralsModule],
  controllers: [SignInOptionsController],
  providers: [SocialAuthService, OAuthFlowService, AccountTakeoverService],
  exports: [SocialAuthService, OAuthFlowService],
})
export class SocialModule {}
