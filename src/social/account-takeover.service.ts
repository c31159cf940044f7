import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { CredentialChanges } from '../auth/account/credential-changes.service';
import { EmailVerificationService } from '../auth/account/email-verification.service';
import { UsersService } from '../users/users.service';
import type { SocialProviderId } from './social.interface';

/**
 * A provider-verified address that matches an account whose address was never proven: the
 * social identity is the proven owner, and whoever signed up with that address proved nothing.
 * In one transaction, everything the unproven party could have set up to keep access goes:
 * the password, the second factor, the API keys, the unused mailed links, and every session
 * (token version); so does what they planted (chats, scheduled tasks, team memberships,
 * preferences; credits and the ledger stay). The address becomes verified (with what that
 * unlocks, once), and the event is audited. Without this, signing up as someone else before they
 * arrive would be a takeover.
 */
@Injectable()
export class AccountTakeoverService {
  private readonly logger = new Logger('SocialLogin');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly verification: EmailVerificationService,
    private readonly changes: CredentialChanges,
    private readonly audit: AuditService,
  ) {}

  /** Gives the unverified account `userId` to the `provider` identity that proved its address. */
  async reclaim(userId: string, provider: SocialProviderId): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await this.users.setPasswordHash(userId, null, m);
      const removed = await this.changes.reclaimUnproven(userId, m, { clearData: true });
      await this.users.bumpTokenVersion(userId, m);
      await this.verification.markVerified(userId, m);
      await this.audit.record(m, {
        action: 'user.social_takeover',
        targetType: 'user',
        targetId: userId,
        details: {
          provider,
          keysRevoked: removed.keysRevoked,
          chatsDeleted: removed.chatsDeleted,
          tasksDeleted: removed.tasksDeleted,
          teamsLeft: removed.teamsLeft,
        },
        actor: { id: null, type: 'system' },
      });
    });
    this.logger.warn(
      { user: userId, provider },
      `A verified ${provider} identity took over an account whose email was never verified; its password, sessions and what was set up in it are gone`,
    );
  }
}
