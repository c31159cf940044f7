import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import * as bcrypt from 'bcrypt';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app.config';
import type { Locale } from '../../i18n/locale';
import { JobsService } from '../../jobs/jobs.service';
import { declareQueue } from '../../jobs/queue-registry';
import { MailService } from '../../mail/mail.service';
import { UsersService } from '../../users/users.service';
import { BCRYPT_COST } from '../auth.service';
import { accountLink } from './account-links';
import { AccountTokens } from './account-tokens.service';
import { EmailVerificationService } from './email-verification.service';
import { mailLocale } from './mail-locale';

interface ResetRequest {
  email: string;
  locale: Locale;
}

declare module '../../jobs/jobs.types' {
  interface JobMap {
    /** A reset asked for an address (lower-cased), answered off the request path. */
    'password-reset-request': ResetRequest;
  }
}

/** Looks the address up and mails a reset link when it names an account. */
export const RESET_REQUEST_QUEUE = declareQueue('password-reset-request');

/**
 * Password reset by mail. The request answers the same whether or not the address has an
 * account, in the same time: it only queues a job, and the job (off the request path) decides
 * whether there is anyone to mail. The link's token lives 1 h and works once; using it sets the
 * password, ends every session (token version), proves the address, and mails a notice.
 * Two-factor stays as it was: a user with 2FA still needs the second factor at the next login.
 */
@Injectable()
export class PasswordResetService implements OnModuleInit {
  private readonly logger = new Logger('PasswordReset');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly tokens: AccountTokens,
    private readonly verification: EmailVerificationService,
    private readonly mail: MailService,
    private readonly jobs: JobsService,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.registerHandler(RESET_REQUEST_QUEUE, (job) => this.mailLink(job.data), {
      retryLimit: 3,
      retryDelaySeconds: 2,
      keepSeconds: 24 * 3600,
    });
  }

  /**
   * POST /api/auth/password/forgot: queues the lookup of `email` (lower-cased) and returns.
   * Never tells whether the address has an account; a queue failure is logged, not answered.
   */
  async requestReset(email: string, locale: Locale): Promise<void> {
    try {
      await this.jobs.enqueue(RESET_REQUEST_QUEUE, { email, locale });
    } catch (err) {
      this.logger.error(`Password reset request not queued: ${(err as Error).message}`);
    }
  }

  /**
   * POST /api/auth/password/reset: uses the token up and sets `password` (already checked by
   * the password policy), raising the token version in the same transaction so that every
   * session issued before ends. Throws AppError INVALID_TOKEN (400).
   */
  async reset(token: string, password: string, requestLocale: Locale): Promise<void> {
    const hash = await bcrypt.hash(password, BCRYPT_COST);
    const user = await this.dataSource.transaction(async (m) => {
      const { userId } = await this.tokens.consume(token, 'reset_password', m);
      await this.users.setPasswordHash(userId, hash, m);
      // Following the mailed link proves the address, as a verification link would.
      await this.verification.markVerified(userId, m);
      return this.users.bumpTokenVersion(userId, m);
    });
    this.logger.log({ user: user.id }, 'Password reset');
    await this.mail.send({
      to: user.email,
      template: 'password-changed',
      locale: mailLocale(user, requestLocale),
      params: { name: user.name },
    });
  }

  private async mailLink({ email, locale: requestLocale }: ResetRequest): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user) return;
    const token = await this.tokens.issue(user.id, 'reset_password');
    const locale = mailLocale(user, requestLocale);
    const { baseUrl } = this.config.get('app', { infer: true });
    await this.mail.send({
      to: user.email,
      template: 'password-reset',
      locale,
      params: { name: user.name, link: accountLink(baseUrl, locale, 'reset_password', token) },
    });
  }
}
