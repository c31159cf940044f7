import { Module } from '@nestjs/common';
import { SocialModule } from '../social/social.module';
import { AuthGoogleController } from './auth-google.controller';
import { AuthGoogleService } from './auth-google.service';

/** Google social login, feeding the shared `validateSocialLogin`. */
@Module({
  imports: [SocialModule],
  controllers: [AuthGoogleController],
  providers: [AuthGoogleService],
})
export class AuthGoogleModule {}
