import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the credits module (admission of a metered call) raises, as `code` in error bodies. */
export enum CreditsErrorCode {
  /** The balance does not cover the call (`required`, `balance`, `shortfall`, `hint`). */
  INSUFFICIENT_CREDITS = 'INSUFFICIENT_CREDITS',
  /** The plan's daily credit limit is reached (`dailyLimit`, `usedToday`, `resetsAt`). */
  DAILY_LIMIT_REACHED = 'DAILY_LIMIT_REACHED',
  /** The key's own `dailyCreditLimit` is reached (with `dailyCreditLimit`, `usedToday`, `resetsAt`). */
  KEY_DAILY_LIMIT_REACHED = 'KEY_DAILY_LIMIT_REACHED',
  /**
   * A budget window of the call's key, member, team or user would be exceeded (`scope`,
   * `scopeId`, `window`, `limit`, `used`, `held`, `resetsAt`): 429 with Retry-After for a window
   * that resets, 402 for a `total` window (status override).
   */
  BUDGET_EXCEEDED = 'BUDGET_EXCEEDED',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const CREDITS_ERRORS: ErrorTable<CreditsErrorCode> = {
  INSUFFICIENT_CREDITS: { status: HttpStatus.PAYMENT_REQUIRED },
  DAILY_LIMIT_REACHED: { status: HttpStatus.TOO_MANY_REQUESTS },
  KEY_DAILY_LIMIT_REACHED: { status: HttpStatus.TOO_MANY_REQUESTS },
  BUDGET_EXCEEDED: { status: HttpStatus.TOO_MANY_REQUESTS },
};
