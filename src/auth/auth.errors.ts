import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/**
 * The codes the auth module (passwords, two-factor, mailed tokens, email changes) raises,
 * as `code` in error bodies.
 */
export enum AuthErrorCode {
  /** Wrong email or password (or current password). */
  INVALID_CREDENTIALS = 'INVALID_CREDENTIALS',
  /** The TOTP or recovery code is wrong, already used, or of an old step. */
  TWO_FACTOR_CODE_INVALID = 'TWO_FACTOR_CODE_INVALID',
  /** The mfaToken of the second login step is missing, forged or expired. */
  MFA_TOKEN_INVALID = 'MFA_TOKEN_INVALID',
  /** Setup while it is already on. */
  TWO_FACTOR_ALREADY_ENABLED = 'TWO_FACTOR_ALREADY_ENABLED',
  /** Disable, new recovery codes or admin reset while it is off. */
  TWO_FACTOR_NOT_ENABLED = 'TWO_FACTOR_NOT_ENABLED',
  /** Enable without a pending setup. */
  TWO_FACTOR_SETUP_REQUIRED = 'TWO_FACTOR_SETUP_REQUIRED',
  /** Password change on an account that has no password (social sign-in only). */
  PASSWORD_NOT_SET = 'PASSWORD_NOT_SET',
  /**
   * A mailed link's token (verification, password reset, email change) is unknown, used or
   * expired: one code and one message, so the answer tells nothing about which.
   */
  INVALID_TOKEN = 'INVALID_TOKEN',
  /** 429: the account asked for EMAIL_CHANGE_PER_DAY email changes in the last 24 hours. */
  EMAIL_CHANGE_LIMIT_REACHED = 'EMAIL_CHANGE_LIMIT_REACHED',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const AUTH_ERRORS: ErrorTable<AuthErrorCode> = {
  INVALID_CREDENTIALS: { status: HttpStatus.UNAUTHORIZED },
  TWO_FACTOR_CODE_INVALID: { status: HttpStatus.UNAUTHORIZED },
  MFA_TOKEN_INVALID: { status: HttpStatus.UNAUTHORIZED },
  TWO_FACTOR_ALREADY_ENABLED: { status: HttpStatus.CONFLICT },
  TWO_FACTOR_NOT_ENABLED: { status: HttpStatus.CONFLICT },
  TWO_FACTOR_SETUP_REQUIRED: { status: HttpStatus.CONFLICT },
  PASSWORD_NOT_SET: { status: HttpStatus.CONFLICT },
  INVALID_TOKEN: { status: HttpStatus.BAD_REQUEST },
  EMAIL_CHANGE_LIMIT_REACHED: { status: HttpStatus.TOO_MANY_REQUESTS },
};
