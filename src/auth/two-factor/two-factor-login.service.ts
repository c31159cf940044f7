import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { AppError } from '../../common/errors/app-error';
import { AuthErrorCode } from '../auth.errors';
import type { User } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';
import { UserAddresses } from '../../users/user-addresses.service';
import type { AuthResultDto } from '../dto/auth.dto';
import { SessionIssuer } from '../session-issuer.service';
import { MfaTokenService } from './mfa-token.service';
import { type SecondFactorProof, TwoFactorCodesService } from './two-factor-codes.service';
import { TwoFactorService } from './two-factor.service';

/** Login's answer while the second factor is outstanding: no session yet. */
export interface MfaChallenge {
  mfaRequired: true;
  mfaToken: string;
}

/** The second login step, shared by password and social sign-in. */
@Injectable()
export class TwoFactorLoginService {
  constructor(
    private readonly twoFactor: TwoFactorService,
    private readonly codes: TwoFactorCodesService,
    private readonly mfa: MfaTokenService,
    private readonly users: UsersService,
    private readonly addresses: UserAddresses,
    private readonly sessions: SessionIssuer,
  ) {}

  /** An mfaToken for `user` when 2FA is on (the first factor just passed), else null. */
  async challengeFor(user: User): Promise<string | null> {
    return (await this.twoFactor.isEnabled(user.id)) ? this.mfa.issue(user) : null;
  }

  /**
   * POST /api/auth/login after the password matched: with 2FA on `{mfaRequired, mfaToken}` and
   * no session; otherwise the session (`{user, accessToken}` and the cookie).
   */
  async login(user: User, res: Response): Promise<AuthResultDto | MfaChallenge> {
    const mfaToken = await this.challengeFor(user);
    return mfaToken ? { mfaRequired: true, mfaToken } : this.sessions.start(user, res);
  }

  /**
   * POST /api/auth/2fa/verify: the mfaToken and a TOTP code or a recovery code → the session.
   * The token serves once, and is claimed before the code is checked, so of parallel verifies
   * with one token only the one holding the claim spends its code (a recovery code above all);
   * a wrong code gives the token back, a sign-in uses it up. Throws
   * MFA_TOKEN_INVALID (401; also when used already, or when the user's token version moved on
   * since, e.g. a password change), TWO_FACTOR_CODE_INVALID (401), RATE_LIMITED (429).
   */
  async verify(
    mfaToken: string,
    proof: SecondFactorProof,
    ip: string | undefined,
    res: Response,
  ): Promise<AuthResultDto> {
    const claims = await this.mfa.verify(mfaToken);
    const { userId, tokenVersion } = claims;
    const user = await this.users.findById(userId);
    if (!user || user.tokenVersion !== tokenVersion)
      throw new AppError(
        AuthErrorCode.MFA_TOKEN_INVALID,
        'The sign-in step expired; sign in again',
      );
    await this.mfa.consume(claims);
    try {
      await this.codes.check(userId, ip, proof);
    } catch (err) {
      await this.mfa.release(claims);
      throw err;
    }
    return this.sessions.start(await this.addresses.applyAdminEmails(user), res);
  }
}
