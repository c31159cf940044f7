import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { authConfig } from './auth.config';
import { sharedConfig } from '../config/shared.config';
import { JwtService } from '@nestjs/jwt';
import * as bcrypt from 'bcrypt';
import type { SessionTokenPayload } from '../common/auth/session-user';
import { AppError } from '../common/errors/app-error';
import { AuthErrorCode } from './auth.errors';
import { UsersErrorCode } from '../users/users.errors';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { UserAddresses } from '../users/user-addresses.service';
import { DataSource } from 'typeorm';
import { InjectDataSource } from '@nestjs/typeorm';
import { ReferralsService } from '../referrals/referrals.service';
import type { Locale } from '../i18n/locale';
import { CredentialChanges } from './account/credential-changes.service';
import { EmailVerificationService } from './account/email-verification.service';
import type { SignupDto } from './dto/auth.dto';
import { SessionsService } from './sessions/sessions.service';

/** bcrypt cost factor (2^12 rounds, about 200 ms on a 2-core machine). */
export const BCRYPT_COST = 12;

export interface IssuedToken {
  accessToken: string;
  /** Expiry, Unix seconds. */
  exp: number;
  /** The session's id (`sid`), a row of `sessions`. */
  sessionId: string;
}

/** Sign-up, the credentials method and session tokens (HS256 JWT, spec Authentication 1–2). */
@Injectable()
export class AuthService {
  // Compared against when no hash exists, so unknown emails cost the same time as wrong passwords.
  private readonly dummyHash = bcrypt.hash('timing-equaliser', BCRYPT_COST);

  constructor(
    private readonly users: UsersService,
    private readonly addresses: UserAddresses,
    private readonly jwt: JwtService,
    @Inject(authConfig.KEY) private readonly auth: ConfigType<typeof authConfig>,
    @Inject(sharedConfig.KEY) private readonly shared: ConfigType<typeof sharedConfig>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly referrals: ReferralsService,
    private readonly sessions: SessionsService,
    private readonly verification: EmailVerificationService,
    private readonly changes: CredentialChanges,
  ) {}

  /**
   * Creates an email-and-password account, unverified, and queues its verification link (in
   * `locale` until the user stores a preference); `referralCode` records the referrer in the
   * same transaction (an unknown code is ignored). Throws AppError EMAIL_TAKEN (409).
   */
  async signup(dto: SignupDto, locale: Locale = 'en'): Promise<User> {
    const passwordHash = await bcrypt.hash(dto.password, BCRYPT_COST);
    const user = await this.users.create({
      email: dto.email,
      name: dto.name,
      passwordHash,
      afterCreate: (user, m) => this.referrals.attachAtSignup(user.id, dto.referralCode, m),
    });
    await this.verification.sendLink(user, locale);
    return user;
  }

  /**
   * The credentials method: the user, or null when either value is missing or holds U+0000, the
   * email is unknown, the account has no password, or the password does not match. Every null path
   * runs one bcrypt comparison, so timing does not tell them apart. With
   * REQUIRE_EMAIL_VERIFICATION, a right password of an unverified address throws AppError
   * EMAIL_NOT_VERIFIED (403); only the right password learns it.
   */
  async validateCredentials(email: unknown, password: unknown): Promise<User | null> {
    // An email holding U+0000 names no user (PostgreSQL text cannot hold it, and the lookup
    // would fail): login runs its guard before the validation pipe that refuses it elsewhere.
    const usable = (v: unknown): v is string =>
      typeof v === 'string' && !!v && !v.includes('\u0000');
    if (!usable(email) || !usable(password)) {
      await bcrypt.compare('x', await this.dummyHash);
      return null;
    }
    const user = await this.users.findByEmail(email);
    const hash = user?.password ?? (await this.dummyHash);
    const ok = await bcrypt.compare(password, hash);
    if (!ok || !user?.password) return null;
    if (!user.emailVerifiedAt && this.auth.requireEmailVerification)
      throw new AppError(
        UsersErrorCode.EMAIL_NOT_VERIFIED,
        'Confirm your email address first; a new link can be sent',
      );
    return this.addresses.applyAdminEmails(user);
  }

  /**
   * Replaces the user's password after checking the current one, and raises the token version
   * in the same transaction, which ends every session issued before; every unused mailed link
   * ends too, and with `revokeKeys` every API key. Returns the user afterwards, for the caller's
   * fresh token. Throws AppError PASSWORD_NOT_SET (409, a social-only account),
   * INVALID_CREDENTIALS (401, wrong current password).
   */
  async changePassword(
    userId: string,
    current: string,
    next: string,
    opts: { revokeKeys: boolean },
  ): Promise<User> {
    const user = await this.users.get(userId);
    if (!user.password)
      throw new AppError(AuthErrorCode.PASSWORD_NOT_SET, 'This account has no password');
    if (!(await bcrypt.compare(current, user.password)))
      throw new AppError(AuthErrorCode.INVALID_CREDENTIALS, 'The current password is not correct');
    const hash = await bcrypt.hash(next, BCRYPT_COST);
    return this.dataSource.transaction(async (m) => {
      await this.users.setPasswordHash(userId, hash, m);
      await this.changes.ended(userId, { m, revokeKeys: opts.revokeKeys });
      return this.users.bumpTokenVersion(userId, m);
    });
  }

  /**
   * Opens a session (a `sessions` row with the request's user agent and address) and signs
   * `{sub, role, ver, sid}` with AUTH_SECRET (`ver`: the user's token version, `sid`: the
   * session); lifetime AUTH_SESSION_MAX_AGE seconds.
   */
  async issueToken(user: Pick<User, 'id' | 'role' | 'tokenVersion'>): Promise<IssuedToken> {
    const sessionId = await this.sessions.open(user);
    const payload: SessionTokenPayload = {
      sub: user.id,
      role: user.role,
      ver: user.tokenVersion,
      sid: sessionId,
    };
    const accessToken = await this.jwt.signAsync(payload);
    const maxAge = this.shared.sessionMaxAge;
    return { accessToken, exp: Math.floor(Date.now() / 1000) + maxAge, sessionId };
  }
}
