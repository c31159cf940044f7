import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { ThrottlerModule } from '@nestjs/throttler';
import type { AppConfig } from '../config/app.config';
import { UsersModule } from '../users/users.module';
import { AuthThrottlerGuard, EMAIL_THROTTLER, emailTracker } from './auth-throttler.guard';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { JwtStrategy } from './jwt.strategy';
import { LocalAuthGuard, LocalStrategy } from './local.strategy';
import { RedisThrottlerStorage } from './redis-throttler.storage';
import { ProtectedController } from './protected.controller';

@Module({
  imports: [
    UsersModule,
    PassportModule,
    JwtModule.registerAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<AppConfig, true>) => {
        const auth = config.get('auth', { infer: true });
        return {
          secret: auth.secret,
          signOptions: { algorithm: 'HS256', expiresIn: auth.sessionMaxAge },
          verifyOptions: { algorithms: ['HS256'] },
        };
      },
    }),
    ThrottlerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<AppConfig, true>) => {
        const {
          rateLimitPerMinute: limit,
          redisUrl,
          redisKeyPrefix,
        } = config.get('auth', {
          infer: true,
        });
        return {
          // Several instances share counters through Redis; one instance keeps them in memory.
          storage: redisUrl ? new RedisThrottlerStorage(redisUrl, redisKeyPrefix) : undefined,
          throttlers: [
            { name: 'default', ttl: 60_000, limit },
            { name: EMAIL_THROTTLER, ttl: 60_000, limit, getTracker: emailTracker },
          ],
        };
      },
    }),
  ],
  controllers: [AuthController, ProtectedController],
  providers: [AuthService, JwtStrategy, LocalStrategy, LocalAuthGuard, AuthThrottlerGuard],
  // Social login (src/social) starts sessions with the same tokens.
  exports: [AuthService],
})
export class AuthModule {}
