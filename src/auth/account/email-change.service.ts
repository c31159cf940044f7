import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { authConfig } from '../auth.config';
import { appSettingsConfig } from '../../config/app-settings.config';
import { InjectDataSource } from '@nestjs/typeorm';
import * as bcrypt from 'bcrypt';
import { DataSource } from 'typeorm';
import { AuditService } from '../../audit/audit.service';
import { AppError, CommonErrorCode } from '../../common/errors/app-error';
import { AuthErrorCode } from '../auth.errors';
import { UsersErrorCode } from '../../users/users.errors';
import type { Locale } from '../../i18n/locale';
import { MailService } from '../../mail/mail.service';
import type { User } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';
import { UserAddresses } from '../../users/user-addresses.service';
import { TwoFactorCodesService } from '../two-factor/two-factor-codes.service';
import { TwoFactorService } from '../two-factor/two-factor.service';
import { accountLink } from './account-links';
import { AccountTokens, invalidToken } from './account-tokens.service';
import { EmailVerificationService } from './email-verification.service';
import { mailLocale } from './mail-locale';

/** What proves the request comes from the account's owner. */
export interface EmailChangeProof {
  password?: string;
  /** A current TOTP code: the proof of an account without a password. */
  totpCode?: string;
}

/**
 * Changing the account's address. The request proves the owner (the password, or a fresh TOTP
 * code for an account without one), then mails a confirmation link to the new address and a
 * notice to the old one; nothing changes until the link is followed. Whether the new address is
 * taken is told only then (409 EMAIL_TAKEN), so the request cannot probe which addresses exist.
 */
@Injectable()
export class EmailChangeService {
  private readonly logger = new Logger('EmailChange');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly addresses: UserAddresses,
    private readonly tokens: AccountTokens,
    private readonly verification: EmailVerificationService,
    private readonly twoFactor: TwoFactorService,
    private readonly codes: TwoFactorCodesService,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    @Inject(authConfig.KEY) private readonly auth: ConfigType<typeof authConfig>,
    @Inject(appSettingsConfig.KEY)
    private readonly appSettings: ConfigType<typeof appSettingsConfig>,
  ) {}

  /**
   * POST /api/user/email. Throws AppError EMAIL_NOT_VERIFIED (403, the current address was never
   * proven: whoever holds such an account need not own it), INVALID_CREDENTIALS (401, wrong or
   * missing password), TWO_FACTOR_NOT_ENABLED (409, an account without a password and without
   * 2FA has no proof to give), TWO_FACTOR_CODE_INVALID (401), RATE_LIMITED (429, failed codes),
   * VALIDATION_FAILED (400, the address is already the account's), EMAIL_CHANGE_LIMIT_REACHED
   * (429, EMAIL_CHANGE_PER_DAY requests in the last 24 hours).
   */
  async request(
    userId: string,
    newEmail: string,
    proof: EmailChangeProof,
    ctx: { ip?: string; locale: Locale },
  ): Promise<void> {
    const user = await this.users.get(userId);
    if (!user.emailVerifiedAt)
      throw new AppError(
        UsersErrorCode.EMAIL_NOT_VERIFIED,
        'Confirm your current email address before changing it',
      );
    await this.proveOwner(user, proof, ctx.ip);
    if (newEmail === user.email)
      throw new AppError(
        CommonErrorCode.VALIDATION_FAILED,
        'This is already the account’s address',
      );
    const perDay = this.auth.emailChangePerDay;
    const token = await this.dataSource.transaction(async (m) => {
      if ((await this.tokens.emailChangesToday(user.id, m)) >= perDay)
        throw new AppError(
          AuthErrorCode.EMAIL_CHANGE_LIMIT_REACHED,
          `At most ${perDay} email changes in 24 hours`,
        );
      return this.tokens.issue(user.id, 'change_email', { newEmail, manager: m });
    });
    const locale = mailLocale(user, ctx.locale);
    const { baseUrl } = this.appSettings;
    // The new address is not proven yet: its mail carries no text the requester chose.
    await this.mail.send({
      to: newEmail,
      toProven: false,
      template: 'email-change-confirm',
      locale,
      params: { newEmail, link: accountLink(baseUrl, locale, 'change_email', token) },
    });
    await this.mail.send({
      to: user.email,
      toProven: true,
      template: 'email-change-notice',
      locale,
      params: { name: user.name, newEmail },
    });
  }

  /**
   * POST /api/user/email/confirm: uses the token up and moves the account to its address, which
   * is then verified; every other link still out (sent to the old address) stops working. The
   * role follows ADMIN_EMAILS: an ADMIN by its old address loses the role when the new one is
   * not listed, a listed new address gains it. Audited (`user.email.change`, and
   * `user.role.change` when the role moved). Throws AppError INVALID_TOKEN (400; also for a link
   * older than the account's last credential change), EMAIL_TAKEN (409; the link stays usable).
   */
  async confirm(token: string): Promise<User> {
    const userId = await this.dataSource.transaction(async (m) => {
      const { userId, newEmail } = await this.tokens.consume(token, 'change_email', m);
      const before = await this.users.findById(userId, m);
      if (!before || !newEmail) throw invalidToken();
      await this.addresses.changeEmail(userId, newEmail, m);
      await this.tokens.revokeAll(userId, m);
      await this.verification.markVerified(userId, m);
      const role = await this.addresses.roleAfterMove(before, newEmail, m);
      await this.audit.record(m, {
        action: 'user.email.change',
        targetType: 'user',
        targetId: userId,
        details: { from: before.email, to: newEmail },
      });
      if (role)
        await this.audit.record(m, {
          action: 'user.role.change',
          targetType: 'user',
          targetId: userId,
          details: { ...role, reason: 'ADMIN_EMAILS' },
          actor: { id: null, type: 'system' },
        });
      return userId;
    });
    this.logger.log({ user: userId }, 'Email changed');
    return this.users.get(userId);
  }

  private async proveOwner(user: User, proof: EmailChangeProof, ip?: string): Promise<void> {
    if (user.password) {
      const ok = !!proof.password && (await bcrypt.compare(proof.password, user.password));
      if (!ok) throw new AppError(AuthErrorCode.INVALID_CREDENTIALS, 'The password is not correct');
      return;
    }
    if (!(await this.twoFactor.isEnabled(user.id)))
      throw new AppError(
        AuthErrorCode.TWO_FACTOR_NOT_ENABLED,
        'An account without a password proves itself with two-factor authentication; turn it on first',
      );
    await this.codes.check(user.id, ip, { code: proof.totpCode ?? '' });
  }
}
