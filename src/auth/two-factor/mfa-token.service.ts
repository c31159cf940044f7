import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { Clock } from '../../common/clock/clock';
import { AppError, ErrorCode } from '../../common/errors/app-error';
import type { User } from '../../users/user.entity';

/** Lifetime of the token between the password (or social) step and the code: 5 minutes. */
export const MFA_TOKEN_TTL_SECONDS = 300;
const MFA_TYP = 'mfa';
const MFA_AUDIENCE = 'two-factor-verify';

interface MfaClaims {
  sub: string;
  ver: number;
  typ: string;
}

/**
 * The short-lived `mfaToken` of a login waiting for its second factor: an HS256 JWT like the
 * session's, but with `typ: "mfa"` and its own audience. The session check refuses any token
 * with a `typ`, and this check accepts only these, so neither stands in for the other.
 * Issued and checked at Clock time.
 */
@Injectable()
export class MfaTokenService {
  constructor(
    private readonly jwt: JwtService,
    private readonly clock: Clock,
  ) {}

  /** An mfaToken for `user` (`sub`, token version `ver`), valid MFA_TOKEN_TTL_SECONDS. */
  issue(user: Pick<User, 'id' | 'tokenVersion'>): Promise<string> {
    const claims: MfaClaims & { iat: number } = {
      sub: user.id,
      ver: user.tokenVersion,
      typ: MFA_TYP,
      iat: this.nowSeconds(),
    };
    return this.jwt.signAsync(claims, { expiresIn: MFA_TOKEN_TTL_SECONDS, audience: MFA_AUDIENCE });
  }

  /**
   * The user id and token version an mfaToken was issued for. Throws AppError
   * MFA_TOKEN_INVALID (401) when it is not a string, forged, expired, or another kind of token.
   */
  async verify(token: string): Promise<{ userId: string; tokenVersion: number }> {
    try {
      const claims = await this.jwt.verifyAsync<MfaClaims>(token, {
        audience: MFA_AUDIENCE,
        clockTimestamp: this.nowSeconds(),
      });
      if (
        claims.typ !== MFA_TYP ||
        typeof claims.sub !== 'string' ||
        typeof claims.ver !== 'number'
      )
        throw new Error('not an mfa token');
      return { userId: claims.sub, tokenVersion: claims.ver };
    } catch {
      throw new AppError(ErrorCode.MFA_TOKEN_INVALID, 'The sign-in step expired; sign in again');
    }
  }

  private nowSeconds(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }
}
