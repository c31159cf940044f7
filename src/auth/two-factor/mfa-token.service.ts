import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Clock } from '../../common/clock/clock';
import { AppError } from '../../common/errors/app-error';
import { AuthErrorCode } from '../auth.errors';
import type { User } from '../../users/user.entity';
import { CONSUME_MFA_TOKEN_SQL, MFA_TOKEN_USED_SQL, RELEASE_MFA_TOKEN_SQL } from './mfa-tokens.sql';

/** Lifetime of the token between the password (or social) step and the code: 5 minutes. */
export const MFA_TOKEN_TTL_SECONDS = 300;
const MFA_TYP = 'mfa';
const MFA_AUDIENCE = 'two-factor-verify';

interface MfaClaims {
  sub: string;
  ver: number;
  typ: string;
  /** The token's own id, recorded in `used_mfa_tokens` when it completes a sign-in. */
  jti: string;
  exp?: number;
}

/** A verified mfaToken: whose, at which token version, its id and expiry (Unix seconds). */
export interface MfaTokenClaims {
  userId: string;
  tokenVersion: number;
  jti: string;
  exp: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The short-lived `mfaToken` of a login waiting for its second factor: an HS256 JWT like the
 * session's, but with `typ: "mfa"` and its own audience. The session check refuses any token
 * with a `typ`, and this check accepts only these, so neither stands in for the other.
 * Issued and checked at Clock time. Single use: the sign-in it completes records its `jti`
 * (`consume`), and a used token is refused on every instance until it expires.
 */
@Injectable()
export class MfaTokenService {
  constructor(
    private readonly jwt: JwtService,
    private readonly clock: Clock,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /**
   * An mfaToken for `user` (`sub`, token version `ver`, a fresh `jti`), valid
   * MFA_TOKEN_TTL_SECONDS.
   */
  issue(user: Pick<User, 'id' | 'tokenVersion'>): Promise<string> {
    const claims: MfaClaims & { iat: number } = {
      sub: user.id,
      ver: user.tokenVersion,
      typ: MFA_TYP,
      jti: randomUUID(),
      iat: this.nowSeconds(),
    };
    return this.jwt.signAsync(claims, { expiresIn: MFA_TOKEN_TTL_SECONDS, audience: MFA_AUDIENCE });
  }

  /**
   * The claims of an mfaToken not used yet. Throws AppError MFA_TOKEN_INVALID (401) when it is
   * not a string, forged, expired, another kind of token, or already used.
   */
  async verify(token: string): Promise<MfaTokenClaims> {
    const claims = await this.decode(token);
    const used: unknown[] = await this.dataSource.query(MFA_TOKEN_USED_SQL, [claims.jti]);
    if (used.length) throw invalid();
    return claims;
  }

  /**
   * Claims the token of `claims` for one sign-in, atomically: of verifies racing with one token,
   * one wins. Throws AppError MFA_TOKEN_INVALID (401) for the losers. The winner checks its code
   * next, and gives the token back (`release`) when the code is wrong.
   */
  async consume(claims: MfaTokenClaims): Promise<void> {
    const rows: unknown[] = await this.dataSource.query(CONSUME_MFA_TOKEN_SQL, [
      claims.jti,
      claims.exp,
    ]);
    if (!rows.length) throw invalid();
  }

  /** Undoes the claim of `claims`' token: the code checked after it was wrong. */
  async release(claims: MfaTokenClaims): Promise<void> {
    await this.dataSource.query(RELEASE_MFA_TOKEN_SQL, [claims.jti]);
  }

  private async decode(token: string): Promise<MfaTokenClaims> {
    try {
      const claims = await this.jwt.verifyAsync<MfaClaims>(token, {
        audience: MFA_AUDIENCE,
        clockTimestamp: this.nowSeconds(),
      });
      if (
        claims.typ !== MFA_TYP ||
        typeof claims.sub !== 'string' ||
        typeof claims.ver !== 'number' ||
        typeof claims.jti !== 'string' ||
        !UUID.test(claims.jti) ||
        typeof claims.exp !== 'number'
      )
        throw new Error('not an mfa token');
      return { userId: claims.sub, tokenVersion: claims.ver, jti: claims.jti, exp: claims.exp };
    } catch {
      throw invalid();
    }
  }

  private nowSeconds(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }
}

/** One answer for every unusable mfaToken: forged, expired, of another kind, or used. */
function invalid(): AppError {
  return new AppError(AuthErrorCode.MFA_TOKEN_INVALID, 'The sign-in step expired; sign in again');
}
