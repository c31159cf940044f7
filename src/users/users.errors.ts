import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the users module (accounts, their email) raises, as `code` in error bodies. */
export enum UsersErrorCode {
  /** Another account has this email. */
  EMAIL_TAKEN = 'EMAIL_TAKEN',
  /** No user of that id. */
  USER_NOT_FOUND = 'USER_NOT_FOUND',
  /**
   * The address is not proven: password login while REQUIRE_EMAIL_VERIFICATION=true, creating an
   * API key, asking to change the email.
   */
  EMAIL_NOT_VERIFIED = 'EMAIL_NOT_VERIFIED',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const USERS_ERRORS: ErrorTable<UsersErrorCode> = {
  EMAIL_TAKEN: { status: HttpStatus.CONFLICT },
  USER_NOT_FOUND: { status: HttpStatus.NOT_FOUND },
  EMAIL_NOT_VERIFIED: { status: HttpStatus.FORBIDDEN },
};
