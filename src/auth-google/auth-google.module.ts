import { Module } from '@nestjs/common';
import { SocialModule } from '../social/social.module';
import { AuthGoogleController } from './auth-google.controller';
import { AuthGoogleService } from './auth-google.service';
import { ConfigSliceModule } from '../config/config-slice.module';
import { oauthConfig } from '../social/social.config';

/** Google social login, feeding the shared `validateSocialLogin`. */
@Module({
  imports: [ConfigSliceModule.forFeature(oauthConfig), SocialModule],
  controllers: [AuthGoogleController],
  providers: [AuthGoogleService],
})
export class AuthGoogleModule {}
