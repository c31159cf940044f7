import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { EmailVerificationService } from '../auth/account/email-verification.service';
import { AccountTokens } from '../auth/account/account-tokens.service';
import { TwoFactorService } from '../auth/two-factor/two-factor.service';
import { ApiKeysService } from '../keys/api-keys.service';
import { UsersService } from '../users/users.service';
import type { SocialProviderId } from './social.interface';

/**
 * A provider-verified address that matches an account whose address was never proven: the
 * social identity is the proven owner, and whoever signed up with that address proved nothing.
 * In one transaction, everything the unproven party could have set up to keep access goes:
 * the password, the second factor, the API keys, the unused mailed links, and every session
 * (token version); the address becomes verified (with what that unlocks, once), and the event is
 * audited. Without this, signing up as someone else before they arrive would be a takeover.
 */
@Injectable()
export class AccountTakeoverService {
  private readonly logger = new Logger('SocialLogin');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly verification: EmailVerificationService,
    private readonly tokens: AccountTokens,
    private readonly twoFactor: TwoFactorService,
    private readonly apiKeys: ApiKeysService,
    private readonly audit: AuditService,
  ) {}

  /** Gives the unverified account `userId` to the `provider` identity that proved its address. */
  async reclaim(userId: string, provider: SocialProviderId): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await this.users.setPasswordHash(userId, null, m);
      await this.twoFactor.removeFor(userId, m);
      const keysRevoked = await this.apiKeys.revokeAllOf(userId, m);
      await this.tokens.revokeAll(userId, m);
      await this.users.bumpTokenVersion(userId, m);
      await this.verification.markVerified(userId, m);
      await this.audit.record(m, {
        action: 'user.social_takeover',
        targetType: 'user',
        targetId: userId,
        details: { provider, keysRevoked },
        actor: { id: null, type: 'system' },
      });
    });
    this.logger.warn(
      { user: userId, provider },
      `A verified ${provider} identity took over an account whose email was never verified; its password and sessions are gone`,
    );
  }
}
