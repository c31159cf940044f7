import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { appSettingsConfig } from '../../config/app-settings.config';
import { InjectDataSource } from '@nestjs/typeorm';
import * as bcrypt from 'bcrypt';
import { DataSource } from 'typeorm';
import type { Locale } from '../../i18n/locale';
import { JobsService } from '../../jobs/jobs.service';
import { declareQueue } from '../../jobs/queue-registry';
import { MailService } from '../../mail/mail.service';
import { UsersService } from '../../users/users.service';
import { BCRYPT_COST } from '../auth.service';
import { accountLink } from './account-links';
import { AccountTokens } from './account-tokens.service';
import { CredentialChanges, removedAccess } from './credential-changes.service';
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
 * password, ends every session (token version) and every other mailed link, revokes the API keys
 * unless asked not to, proves the address, and mails a notice saying what ended. Two-factor stays
 * as it was for a proven address. An address proven for the first time by the reset changes
 * hands: whatever was set up while nobody had proven it goes (second factor, keys, links, and the
 * chats, tasks, team memberships and preferences), as when a social identity takes it back.
 */
@Injectable()
export class PasswordResetService implements OnModuleInit {
  private readonly logger = new Logger('PasswordReset');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly tokens: AccountTokens,
    private readonly changes: CredentialChanges,
    private readonly verification: EmailVerificationService,
    private readonly mail: MailService,
    private readonly jobs: JobsService,
    @Inject(appSettingsConfig.KEY)
    private readonly appSettings: ConfigType<typeof appSettingsConfig>,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.registerHandler(RESET_REQUEST_QUEUE, (job) => this.mailLink(job.data, job.id), {
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
   * session issued before ends; every other mailed link ends, and the API keys are revoked unless
   * `revokeKeys` is false. Throws AppError INVALID_TOKEN (400).
   */
  async reset(
    token: string,
    password: string,
    opts: { revokeKeys?: boolean; locale: Locale },
  ): Promise<void> {
    const hash = await bcrypt.hash(password, BCRYPT_COST);
    const { user, removed } = await this.dataSource.transaction(async (m) => {
      const { userId } = await this.tokens.consume(token, 'reset_password', m);
      await this.users.setPasswordHash(userId, hash, m);
      // Following the mailed link proves the address, as a verification link would.
      const proved = await this.verification.markVerified(userId, m);
      const ended = proved
        ? await this.changes.reclaimUnproven(userId, m, { clearData: true })
        : await this.changes.ended(userId, { m, revokeKeys: opts.revokeKeys ?? true });
      const removed = removedAccess(ended);
      return { user: await this.users.bumpTokenVersion(userId, m), removed };
    });
    if (removed.data)
      this.logger.warn(
        { user: user.id },
        'A password reset proved an address nobody had proven; what was set up on the account before is gone',
      );
    this.logger.log({ user: user.id }, 'Password reset');
    await this.mail.send({
      to: user.email,
      toProven: true,
      template: 'password-changed',
      locale: mailLocale(user, opts.locale),
      params: { name: user.name, removed },
    });
  }

  private async mailLink({ email, locale: requestLocale }: ResetRequest, jobId: string) {
    try {
      const user = await this.users.findByEmail(email);
      if (!user) {
        // Decided to send nothing: said in the log, without the address (it names no account).
        this.logger.log({ job: jobId }, 'No password reset mail: the address has no account');
        return;
      }
      const token = await this.tokens.issue(user.id, 'reset_password');
      const locale = mailLocale(user, requestLocale);
      const { baseUrl } = this.appSettings;
      await this.mail.send({
        to: user.email,
        toProven: !!user.emailVerifiedAt,
        template: 'password-reset',
        locale,
        params: { name: user.name, link: accountLink(baseUrl, locale, 'reset_password', token) },
      });
      this.logger.log({ job: jobId, user: user.id, locale }, 'Password reset mail queued');
    } catch (err) {
      this.logger.error(
        { job: jobId },
        `Password reset request failed, retried by the queue: ${(err as Error).message}`,
      );
      throw err;
    }
  }
}
