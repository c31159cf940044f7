import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import type { Response } from 'express';
import { AppError, ErrorCode } from '../common/errors/app-error';

/** Throttler name whose tracker is the submitted email (the default one tracks the client IP). */
export const EMAIL_THROTTLER = 'email';

/** Tracks `email:<address>` from the body, so one account cannot be brute-forced from many IPs. */
export function emailTracker(req: Record<string, any>): Promise<string> {
  const email = typeof req.body?.email === 'string' ? req.body.email.trim().toLowerCase() : '';
  return Promise.resolve(email ? `email:${email}` : `ip:${req.ip}`);
}

/**
 * Rate limit for sign-up and login: AUTH_RATE_LIMIT_PER_MINUTE per client IP and per email.
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
    throw new AppError(ErrorCode.RATE_LIMITED, 'Too many attempts; try again later');
  }
}
