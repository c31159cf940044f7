import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { AppError, ErrorCode } from '../errors/app-error';
import type { Request } from 'express';
import { IS_PUBLIC_KEY } from './auth.decorators';
import { SESSION_COOKIE } from './session-user';

/**
 * Deny by default: every route needs a valid session (Bearer token or cookie) unless marked
 * `@Public()`. Public routes still read a session when one is sent (e.g. GET /api/auth/session).
 * Failure → 401 `{error, code: "UNAUTHORIZED"}` (spec Authentication 5).
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.isPublic(context)) return (await super.canActivate(context)) as boolean;
    // Public and no credentials at all: nothing to read (keeps /health/live cheap).
    const req = context.switchToHttp().getRequest<Request>();
    if (!req.headers.authorization && !req.cookies?.[SESSION_COOKIE]) return true;
    try {
      await super.canActivate(context);
    } catch {
      // An invalid token on a public route simply means "no session".
    }
    return true;
  }

  handleRequest<T>(err: unknown, user: T, _info: unknown, context: ExecutionContext): T {
    // `err` comes only from reading the user (e.g. the database is down): that is not "no
    // session", so it goes to the error filter instead of becoming a 401.
    if (err) throw err;
    if (user) return user;
    if (this.isPublic(context)) return undefined as T;
    throw new AppError(ErrorCode.UNAUTHORIZED, 'Authentication required');
  }

  private isPublic(context: ExecutionContext): boolean {
    return !!this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
  }
}
