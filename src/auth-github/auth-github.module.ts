import { Module } from '@nestjs/common';
import { SocialModule } from '../social/social.module';
import { AuthGithubController } from './auth-github.controller';
import { AuthGithubService } from './auth-github.service';

/** GitHub social login, feeding the shared `validateSocialLogin`. */
@Module({
  imports: [SocialModule],
  controllers: [AuthGithubController],
  providers: [AuthGithubService],
})
export class AuthGithubModule {}
