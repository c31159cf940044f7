import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { ThrottlerModule, ThrottlerStorage } from '@nestjs/throttler';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Clock } from '../common/clock/clock';
import { SecretBox } from '../common/crypto/secret-box';
import { ConfigSliceModule } from '../config/config-slice.module';
import { sharedConfig } from '../config/shared.config';
import { CreditsModule } from '../credits/credits.module';
import { JobsModule } from '../jobs/jobs.module';
import { KeysModule } from '../keys/keys.module';
import { MailModule } from '../mail/mail.module';
import { ReferralsModule } from '../referrals/referrals.module';
import { UsersModule } from '../users/users.module';
import { AccountTokens } from './account/account-tokens.service';
import { CredentialChanges } from './account/credential-changes.service';
import { EmailChangeController } from './account/email-change.controller';
import { EmailChangeService } from './account/email-change.service';
import { EmailVerificationController } from './account/email-verification.controller';
import { EmailVerificationService } from './account/email-verification.service';
import { PasswordResetController } from './account/password-reset.controller';
import { PasswordResetService } from './account/password-reset.service';
import { authConfig } from './auth.config';
import { AuthThrottlerGuard, EMAIL_THROTTLER, emailTracker } from './auth-throttler.guard';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { JwtStrategy } from './jwt.strategy';
import { LocalAuthGuard, LocalStrategy } from './local.strategy';
import type { RedisThrottlerStorage } from './redis-throttler.storage';
import { ProtectedController } from './protected.controller';
import { PasswordController } from './password.controller';
import { SessionIssuer } from './session-issuer.service';
import { SessionsAdminController } from './sessions/sessions-admin.controller';
import { SessionsController } from './sessions/sessions.controller';
import { SessionsService } from './sessions/sessions.service';
import {
  FailureCounter,
  MemoryFailureCounter,
  RedisFailureCounter,
} from './two-factor/failure-counter';
import { MfaTokenService } from './two-factor/mfa-token.service';
import { TwoFactorAdminController } from './two-factor/two-factor-admin.controller';
import { TwoFactorAttempts } from './two-factor/two-factor-attempts';
import { TwoFactorCodesService } from './two-factor/two-factor-codes.service';
import { TwoFactorLoginService } from './two-factor/two-factor-login.service';
import { TwoFactorController } from './two-factor/two-factor.controller';
import { twoFactorConfig } from './two-factor/two-factor.config';
import { RecoveryCode, TwoFactor } from './two-factor/two-factor.entity';
import { TwoFactorService } from './two-factor/two-factor.service';

@Module({
  imports: [
    ConfigSliceModule.forFeature(authConfig, twoFactorConfig),
    UsersModule,
    ReferralsModule,
    CreditsModule,
    JobsModule,
    KeysModule,
    MailModule,
    TypeOrmModule.forFeature([TwoFactor, RecoveryCode]),
    PassportModule,
    JwtModule.registerAsync({
      inject: [sharedConfig.KEY],
      useFactory: (shared: ConfigType<typeof sharedConfig>) => {
        return {
          secret: shared.authSecret,
          signOptions: { algorithm: 'HS256', expiresIn: shared.sessionMaxAge },
          verifyOptions: { algorithms: ['HS256'] },
        };
      },
    }),
    ThrottlerModule.forRootAsync({
      imports: [ConfigSliceModule.forFeature(authConfig)],
      inject: [authConfig.KEY],
      useFactory: (auth: ConfigType<typeof authConfig>) => {
        const { rateLimitPerMinute: limit, redisUrl, redisKeyPrefix } = auth;
        return {
          // Several instances share counters through Redis; one instance keeps them in memory.
          storage: redisUrl ? new (redisStorage())(redisUrl, redisKeyPrefix) : undefined,
          throttlers: [
            { name: 'default', ttl: 60_000, limit },
            { name: EMAIL_THROTTLER, ttl: 60_000, limit, getTracker: emailTracker },
          ],
        };
      },
    }),
  ],
  controllers: [
    AuthController,
    ProtectedController,
    PasswordController,
    SessionsController,
    SessionsAdminController,
    TwoFactorController,
    TwoFactorAdminController,
    EmailVerificationController,
    PasswordResetController,
    EmailChangeController,
  ],
  providers: [
    AuthService,
    JwtStrategy,
    LocalStrategy,
    LocalAuthGuard,
    AuthThrottlerGuard,
    SessionIssuer,
    SessionsService,
    {
      provide: SecretBox,
      inject: [sharedConfig.KEY],
      useFactory: (shared: ConfigType<typeof sharedConfig>) => new SecretBox(shared.encryptionKey),
    },
    {
      // Failed 2FA codes are counted where the rate limits are: Redis when configured.
      provide: FailureCounter,
      inject: [ThrottlerStorage, Clock, authConfig.KEY],
      useFactory: (storage: unknown, clock: Clock, auth: ConfigType<typeof authConfig>) => {
        const memory = new MemoryFailureCounter(clock);
        if (!auth.redisUrl || !(storage instanceof redisStorage())) return memory;
        const prefix = auth.redisKeyPrefix;
        return new RedisFailureCounter(storage.redis, prefix, memory);
      },
    },
    TwoFactorAttempts,
    TwoFactorCodesService,
    TwoFactorService,
    MfaTokenService,
    TwoFactorLoginService,
    AccountTokens,
    CredentialChanges,
    EmailVerificationService,
    PasswordResetService,
    EmailChangeService,
  ],
  // Social login (src/social) starts sessions with the same tokens and the same second step.
  // Social login also verifies addresses and takes back unverified accounts.
  exports: [
    AuthService,
    SessionIssuer,
    TwoFactorLoginService,
    EmailVerificationService,
    AccountTokens,
    CredentialChanges,
    TwoFactorService,
  ],
})
export class AuthModule {}

/** The Redis storage class, loaded only when REDIS_URL is set (ioredis stays out otherwise). */
function redisStorage(): typeof RedisThrottlerStorage {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./redis-throttler.storage') as typeof import('./redis-throttler.storage'))
    .RedisThrottlerStorage;
}
