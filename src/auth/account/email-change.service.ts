import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import * as bcrypt from 'bcrypt';
import { DataSource } from 'typeorm';
import { AuditService } from '../../audit/audit.service';
import { AppError, ErrorCode } from '../../common/errors/app-error';
import type { AppConfig } from '../../config/app.config';
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
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  /**
   * POST /api/user/email. Throws AppError INVALID_CREDENTIALS (401, wrong or missing password),
   * TWO_FACTOR_NOT_ENABLED (409, an account without a password and without 2FA has no proof to
   * give), TWO_FACTOR_CODE_INVALID (401), RATE_LIMITED (429, failed codes), VALIDATION_FAILED
   * (400, the address is already the account's).
   */
  async request(
    userId: string,
    newEmail: string,
    proof: EmailChangeProof,
    ctx: { ip?: string; locale: Locale },
  ): Promise<void> {
    const user = await this.users.get(userId);
    await this.proveOwner(user, proof, ctx.ip);
    if (newEmail === user.email)
      throw new AppError(ErrorCode.VALIDATION_FAILED, 'This is already the account’s address');
    const token = await this.tokens.issue(user.id, 'change_email', { newEmail });
    const locale = mailLocale(user, ctx.locale);
    const { baseUrl } = this.config.get('app', { infer: true });
    await this.mail.send({
      to: newEmail,
      template: 'email-change-confirm',
      locale,
      params: {
        name: user.name,
        newEmail,
        link: accountLink(baseUrl, locale, 'change_email', token),
      },
    });
    await this.mail.send({
      to: user.email,
      template: 'email-change-notice',
      locale,
      params: { name: user.name, newEmail },
    });
  }

  /**
   * POST /api/user/email/confirm: uses the token up and moves the account to its address, which
   * is then verified; every other link still out (sent to the old address) stops working.
   * Audited. Throws AppError INVALID_TOKEN (400), EMAIL_TAKEN (409; the link stays usable).
   */
  async confirm(token: string): Promise<User> {
    const userId = await this.dataSource.transaction(async (m) => {
      const { userId, newEmail } = await this.tokens.consume(token, 'change_email', m);
      const before = await this.users.findById(userId, m);
      if (!before || !newEmail) throw invalidToken();
      await this.addresses.changeEmail(userId, newEmail, m);
      await this.tokens.revokeAll(userId, m);
      await this.verification.markVerified(userId, m);
      await this.audit.record(m, {
        action: 'user.email.change',
        targetType: 'user',
        targetId: userId,
        details: { from: before.email, to: newEmail },
      });
      return userId;
    });
    this.logger.log({ user: userId }, 'Email changed');
    return this.users.get(userId);
  }

  private async proveOwner(user: User, proof: EmailChangeProof, ip?: string): Promise<void> {
    if (user.password) {
      const ok = !!proof.password && (await bcrypt.compare(proof.password, user.password));
      if (!ok) throw new AppError(ErrorCode.INVALID_CREDENTIALS, 'The password is not correct');
      return;
    }
    if (!(await this.twoFactor.isEnabled(user.id)))
      throw new AppError(
        ErrorCode.TWO_FACTOR_NOT_ENABLED,
        'An account without a password proves itself with two-factor authentication; turn it on first',
      );
    await this.codes.check(user.id, ip, { code: proof.totpCode ?? '' });
  }
}
