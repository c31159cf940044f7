import { createSecretKey } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { sharedConfig } from '../config/shared.config';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { ExtractJwt, Strategy } from 'passport-jwt';
import type { SessionTokenPayload, SessionUser } from '../common/auth/session-user';
import { UsersService } from '../users/users.service';
import { SESSION_COOKIE } from './session-cookie';
import { SessionsService } from './sessions/sessions.service';

const fromCookie = (req: Request): string | null => req.cookies?.[SESSION_COOKIE] ?? null;

/**
 * Reads the session from `Authorization: Bearer` or the session cookie. Only HS256 is accepted,
 * so `alg: none` and other algorithms fail. The user is re-read, so a deleted account's token
 * stops working and a changed role applies at once. Refused too: a token with a `typ` (the
 * two-factor `mfa` token is not a session), one whose `ver` is not the user's current token
 * version (a password or two-factor change ended it), and one without a `sid` or whose session
 * was ended (signed out, or ended from the sessions list). The user and the session are read from
 * the process's SessionCache when they can be, so a known session costs no query.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(sharedConfig.KEY) shared: ConfigType<typeof sharedConfig>,
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromExtractors([
        ExtractJwt.fromAuthHeaderAsBearerToken(),
        fromCookie,
      ]),
      // A KeyObject, not a string: jsonwebtoken otherwise first tries (and fails) to parse the
      // string as a public key on every verification, 13 % of a request's CPU in the bench.
      secretOrKey: createSecretKey(
        Buffer.from(shared.authSecret as string, 'utf8'),
      ) as unknown as string,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
  }

  async validate(payload: SessionTokenPayload): Promise<SessionUser | null> {
    const { sub, sid } = payload;
    if (typeof sub !== 'string' || typeof sid !== 'string' || payload.typ !== undefined)
      return null;
    const [user, live] = await Promise.all([
      this.users.findSessionUser(sub),
      this.sessions.isActive(sid, sub),
    ]);
    if (!user || !live || (payload.ver ?? 0) !== user.tokenVersion) return null;
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      role: user.role,
      plan: user.plan,
      exp: payload.exp,
      locale: user.locale ?? undefined,
      preferences: user.preferences,
      sessionId: sid,
    };
  }
}
