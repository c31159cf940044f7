import { Module } from '@nestjs/common';
import { SocialModule } from '../social/social.module';
import { AuthGithubController } from './auth-github.controller';
import { AuthGithubService } from './auth-github.service';
import { ConfigSliceModule } from '../config/config-slice.module';
import { oauthConfig } from '../social/social.config';

/** GitHub social login, feeding the shared `validateSocialLogin`. */
@Module({
  imports: [ConfigSliceModule.forFeature(oauthConfig), SocialModule],
  controllers: [AuthGithubController],
  providers: [AuthGithubService],
})
export class AuthGithubModule {}
