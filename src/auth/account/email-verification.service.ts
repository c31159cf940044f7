import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { appSettingsConfig } from '../../config/app-settings.config';
import { sharedConfig } from '../../config/shared.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { CreditsService } from '../../credits/credits.service';
import { DEFAULT_LOCALE, type Locale } from '../../i18n/locale';
import { MailService } from '../../mail/mail.service';
import { ReferralsService } from '../../referrals/referrals.service';
import type { User } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';
import { UserAddresses } from '../../users/user-addresses.service';
import { accountLink } from './account-links';
import { AccountTokens } from './account-tokens.service';
import { CredentialChanges, removedAccess } from './credential-changes.service';
import { mailLocale } from './mail-locale';

/** Ledger reference of the sign-up bonus; the same as before verification existed, so an
 * account that got the bonus at sign-up never gets it twice. */
export const SIGNUP_BONUS_REFERENCE = 'signup:';

/**
 * Email verification: the link sent at sign-up (and on request), and what a proven address
 * unlocks, all in the transaction that marks it: the SIGNUP_CREDITS bonus, the referred user's
 * REFERRAL_SIGNUP_BONUS, and role ADMIN for an address in ADMIN_EMAILS.
 */
@Injectable()
export class EmailVerificationService {
  private readonly logger = new Logger('EmailVerification');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly addresses: UserAddresses,
    private readonly tokens: AccountTokens,
    private readonly changes: CredentialChanges,
    private readonly credits: CreditsService,
    private readonly referrals: ReferralsService,
    private readonly mail: MailService,
    @Inject(sharedConfig.KEY) private readonly shared: ConfigType<typeof sharedConfig>,
    @Inject(appSettingsConfig.KEY)
    private readonly appSettings: ConfigType<typeof appSettingsConfig>,
  ) {}

  /**
   * Marks `userId`'s address verified inside `m` and grants what that unlocks, once: a second
   * call changes nothing. Returns whether this call verified it.
   */
  async markVerified(userId: string, m: EntityManager): Promise<boolean> {
    const user = await this.addresses.markEmailVerified(userId, m);
    if (!user) return false;
    const { signupCredits } = this.shared;
    if (signupCredits > 0)
      await this.credits.grant(
        userId,
        signupCredits,
        'BONUS',
        'Sign-up bonus',
        `${SIGNUP_BONUS_REFERENCE}${userId}`,
        m,
      );
    await this.referrals.grantSignupBonus(userId, m);
    return true;
  }

  /**
   * Mails `user` a verification link (valid 24 h, single use; earlier links stop working).
   * Queued, never blocking. A verified user is sent nothing.
   */
  async sendLink(user: User, requestLocale: Locale): Promise<void> {
    if (user.emailVerifiedAt) {
      this.logger.log({ user: user.id }, 'No verification link sent: the address is verified');
      return;
    }
    const token = await this.tokens.issue(user.id, 'verify_email');
    const locale = mailLocale(user, requestLocale);
    const { baseUrl } = this.appSettings;
    await this.mail.send({
      to: user.email,
      template: 'verify-email',
      toProven: false,
      locale,
      params: { name: user.name, link: accountLink(baseUrl, locale, 'verify_email', token) },
    });
  }

  /** POST /api/auth/verify-email/resend: a fresh link for the session user, if unverified. */
  async resend(userId: string, requestLocale: Locale): Promise<void> {
    await this.sendLink(await this.users.get(userId), requestLocale);
  }

  /**
   * POST /api/auth/verify-email: uses the token up and verifies its account, in one
   * transaction. When this proves the address for the first time, whatever was set up before
   * (API keys, the second factor, unused links) goes, since whoever created the account need not
   * own the address; a mail says what went. Returns the user afterwards. Throws AppError
   * INVALID_TOKEN (400).
   */
  async verify(token: string, requestLocale: Locale = DEFAULT_LOCALE): Promise<User> {
    const { userId, removed } = await this.dataSource.transaction(async (m) => {
      const consumed = await this.tokens.consume(token, 'verify_email', m);
      const proved = await this.markVerified(consumed.userId, m);
      const removed = proved
        ? await this.changes.reclaimUnproven(consumed.userId, m, { clearData: false })
        : null;
      return { userId: consumed.userId, removed };
    });
    this.logger.log({ user: userId }, 'Email verified');
    const user = await this.users.get(userId);
    if (removed && (removed.keysRevoked || removed.twoFactorRemoved || removed.linksRevoked))
      await this.mail.send({
        to: user.email,
        toProven: true,
        template: 'unproven-setup-removed',
        locale: mailLocale(user, requestLocale),
        params: { name: user.name, removed: removedAccess(removed) },
      });
    return user;
  }
}
