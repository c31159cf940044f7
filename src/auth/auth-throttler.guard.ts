import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import type { Response } from 'express';
import { AppError, CommonErrorCode } from '../common/errors/app-error';

/** Throttler name whose tracker is the submitted email (the default one tracks the client IP). */
export const EMAIL_THROTTLER = 'email';

/**
 * Tracks `email:<address>` from the body, so one account cannot be brute-forced (or mailed
 * without end) from many IPs; without an email in the body, the session user (`user:<id>`, e.g.
 * a verification resend), else the client IP.
 */
export function emailTracker(req: Record<string, any>): Promise<string> {
  const email = typeof req.body?.email === 'string' ? req.body.email.trim().toLowerCase() : '';
  if (email) return Promise.resolve(`email:${email}`);
  const userId = typeof req.user?.id === 'string' ? req.user.id : '';
  return Promise.resolve(userId ? `user:${userId}` : `ip:${req.ip}`);
}

/**
 * Rate limit for sign-up, login and the mailed-link routes: AUTH_RATE_LIMIT_PER_MINUTE per
 * client IP and per email (or session user).
 * Answers 429 `{error, code: "RATE_LIMITED"}` with `Retry-After` (seconds).
 */
@Injectable()
export class AuthThrottlerGuard extends ThrottlerGuard {
  protected async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    context
      .switchToHttp()
      .getResponse<Response>()
      .setHeader('Retry-After', String(detail.timeToBlockExpire));
    throw new AppError(CommonErrorCode.RATE_LIMITED, 'Too many attempts; try again later');
  }
}
