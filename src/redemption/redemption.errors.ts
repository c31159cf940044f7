import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the redemption module raises, as `code` in error bodies. */
export enum RedemptionErrorCode {
  /**
   * The code is unknown, used up, or of a disabled batch: one answer and one message for all
   * three, so an answer tells a guesser nothing about which codes exist.
   */
  CODE_INVALID = 'CODE_INVALID',
  /** The code's batch expired (`expiresAt` passed) while it still had uses left. */
  CODE_EXPIRED = 'CODE_EXPIRED',
  /** The caller already redeemed this code, and its batch allows one use per user. */
  CODE_ALREADY_REDEEMED = 'CODE_ALREADY_REDEEMED',
  /** The batch's codes were exported already: they are shown once, then only their hashes remain. */
  CODES_ALREADY_EXPORTED = 'CODES_ALREADY_EXPORTED',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const REDEMPTION_ERRORS: ErrorTable<RedemptionErrorCode> = {
  CODE_INVALID: { status: HttpStatus.NOT_FOUND },
  CODE_EXPIRED: { status: HttpStatus.GONE },
  CODE_ALREADY_REDEEMED: { status: HttpStatus.CONFLICT },
  CODES_ALREADY_EXPORTED: { status: HttpStatus.GONE },
};
