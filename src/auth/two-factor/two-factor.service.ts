import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { twoFactorConfig } from './two-factor.config';
import { InjectDataSource } from '@nestjs/typeorm';
import * as bcrypt from 'bcrypt';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditService } from '../../audit/audit.service';
import type { SessionUser } from '../../common/auth/session-user';
import { SecretBox } from '../../common/crypto/secret-box';
import { AppError } from '../../common/errors/app-error';
import { AuthErrorCode } from '../auth.errors';
import type { User } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';
import { newTotpSecret, otpauthUrl, qrCodeDataUrl } from './totp';
import { TwoFactorAttempts } from './two-factor-attempts';
import { TwoFactorCodesService } from './two-factor-codes.service';
import { ENABLE_SQL, SETUP_SECRET_SQL } from './two-factor.sql';
import { RecoveryCode, TwoFactor } from './two-factor.entity';

/** What setup shows once: the base32 secret, its `otpauth://` URI, and that URI as a PNG QR code. */
export interface TwoFactorSetup {
  secret: string;
  otpauthUrl: string;
  qrCodeDataUrl: string;
}

/**
 * Enrolling in, managing and turning off TOTP two-factor authentication. Each change
 * of state (enable, disable, admin reset) raises the user's token version in the same
 * transaction, which ends every session issued before it; the caller gives the session that
 * made the change a fresh token from the returned user.
 */
@Injectable()
export class TwoFactorService {
  private readonly logger = new Logger('TwoFactor');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly codes: TwoFactorCodesService,
    private readonly attempts: TwoFactorAttempts,
    private readonly box: SecretBox,
    @Inject(twoFactorConfig.KEY) private readonly twoFactor: ConfigType<typeof twoFactorConfig>,
    private readonly audit: AuditService,
  ) {}

  /** Whether 2FA is on for the user (a pending setup does not count). */
  async isEnabled(userId: string): Promise<boolean> {
    const row = await this.dataSource.getRepository(TwoFactor).findOneBy({ userId });
    return !!row?.enabledAt;
  }

  /** `{enabled, recoveryCodesLeft}` (0 while off). */
  async status(userId: string): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
    const enabled = await this.isEnabled(userId);
    return { enabled, recoveryCodesLeft: enabled ? await this.codes.recoveryCodesLeft(userId) : 0 };
  }

  /**
   * A new pending secret for `user`, replacing any earlier pending one; stored encrypted
   * (AES-256-GCM bound to the user id). Throws AppError TWO_FACTOR_ALREADY_ENABLED (409).
   */
  async setup(user: SessionUser): Promise<TwoFactorSetup> {
    const secret = newTotpSecret();
    const sealed = this.box.seal(secret, user.id);
    // Upsert that never touches an enabled row: no row back means 2FA is on.
    const rows = await this.dataSource.query<unknown[]>(SETUP_SECRET_SQL, [user.id, sealed]);
    if (!rows.length) throw this.alreadyEnabled();
    const url = otpauthUrl(secret, this.twoFactor.issuer, user.email);
    return { secret, otpauthUrl: url, qrCodeDataUrl: await qrCodeDataUrl(url) };
  }

  /**
   * Confirms the pending secret with a TOTP `code` and turns 2FA on: a new set of recovery
   * codes (returned in clear, once) and a new token version. Throws TWO_FACTOR_ALREADY_ENABLED
   * or TWO_FACTOR_SETUP_REQUIRED (409), TWO_FACTOR_CODE_INVALID (401), RATE_LIMITED (429).
   */
  async enable(
    userId: string,
    ip: string | undefined,
    code: string,
  ): Promise<{ recoveryCodes: string[]; user: User }> {
    const row = await this.dataSource.getRepository(TwoFactor).findOneBy({ userId });
    if (row?.enabledAt) throw this.alreadyEnabled();
    if (!row)
      throw new AppError(
        AuthErrorCode.TWO_FACTOR_SETUP_REQUIRED,
        'Set up two-factor authentication first',
      );
    await this.codes.check(userId, ip, { code }, 'pending');
    return this.dataSource.transaction(async (m) => {
      const [, changed] = await m.query<[unknown[], number]>(ENABLE_SQL, [userId]);
      if (changed !== 1) throw this.alreadyEnabled();
      const recoveryCodes = await this.codes.replaceRecoveryCodes(userId, m);
      return { recoveryCodes, user: await this.users.bumpTokenVersion(userId, m) };
    });
  }

  /**
   * A new set of recovery codes for a TOTP `code`; the old set stops working. Throws
   * TWO_FACTOR_NOT_ENABLED (409), TWO_FACTOR_CODE_INVALID (401), RATE_LIMITED (429).
   */
  async regenerateRecoveryCodes(userId: string, ip: string | undefined, code: string) {
    await this.requireEnabled(userId);
    await this.codes.check(userId, ip, { code });
    return this.dataSource.transaction((m) => this.codes.replaceRecoveryCodes(userId, m));
  }

  /**
   * Turns 2FA off for a TOTP `code` and, when the account has a password, that password.
   * Throws TWO_FACTOR_NOT_ENABLED (409), INVALID_CREDENTIALS or TWO_FACTOR_CODE_INVALID (401,
   * both counted as failures), RATE_LIMITED (429). Returns the user with its new token version.
   */
  async disable(
    userId: string,
    ip: string | undefined,
    proof: { password?: string; code: string },
  ): Promise<User> {
    await this.requireEnabled(userId);
    const user = await this.users.get(userId);
    if (user.password) {
      await this.attempts.assertAllowed(userId, ip);
      const ok =
        proof.password !== undefined && (await bcrypt.compare(proof.password, user.password));
      if (!ok) {
        await this.attempts.recordFailure(userId, ip);
        throw new AppError(AuthErrorCode.INVALID_CREDENTIALS, 'The password is not correct');
      }
    }
    await this.codes.check(userId, ip, { code: proof.code });
    return this.turnOff(userId);
  }

  /**
   * An administrator turns 2FA off for user `userId` (lost authenticator and codes); logged
   * with both ids, and the user's sessions end. Throws USER_NOT_FOUND (404),
   * TWO_FACTOR_NOT_ENABLED (409).
   */
  async adminReset(admin: SessionUser, userId: string): Promise<void> {
    await this.users.get(userId);
    await this.requireEnabled(userId);
    await this.turnOff(userId, (m) =>
      this.audit.record(m, { action: 'two_factor.reset', targetType: 'user', targetId: userId }),
    );
    this.logger.log(
      `Administrator ${admin.id} (${admin.email}) turned off two-factor authentication of user ${userId}`,
    );
  }

  /**
   * Removes the user's second factor (secret and recovery codes) inside `m`, without the checks
   * of `disable`: for an account taken back from whoever set it up. The caller ends the sessions.
   * Returns whether two-factor was on (a pending setup is removed too, and does not count).
   */
  async removeFor(userId: string, m: EntityManager): Promise<boolean> {
    const row = await m.findOneBy(TwoFactor, { userId });
    await m.delete(RecoveryCode, { userId });
    await m.delete(TwoFactor, { userId });
    return !!row?.enabledAt;
  }

  /** `also` runs in the same transaction (the admin reset's audit row). */
  private turnOff(userId: string, also?: (m: EntityManager) => Promise<void>): Promise<User> {
    return this.dataSource.transaction(async (m) => {
      await m.delete(RecoveryCode, { userId });
      await m.delete(TwoFactor, { userId });
      await also?.(m);
      return this.users.bumpTokenVersion(userId, m);
    });
  }

  private async requireEnabled(userId: string): Promise<void> {
    if (!(await this.isEnabled(userId)))
      throw new AppError(
        AuthErrorCode.TWO_FACTOR_NOT_ENABLED,
        'Two-factor authentication is not on',
      );
  }

  private alreadyEnabled(): AppError {
    return new AppError(
      AuthErrorCode.TWO_FACTOR_ALREADY_ENABLED,
      'Two-factor authentication is already on',
    );
  }
}
