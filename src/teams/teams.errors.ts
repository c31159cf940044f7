import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the teams module (members and invitations) raises, as `code` in error bodies. */
export enum TeamsErrorCode {
  /** The change would leave a team without an OWNER. */
  LAST_OWNER = 'LAST_OWNER',
  /** The invited email already belongs to a member. */
  ALREADY_MEMBER = 'ALREADY_MEMBER',
  /** The session user's email is not the invitation's email. */
  INVITATION_EMAIL_MISMATCH = 'INVITATION_EMAIL_MISMATCH',
  /** The invitation expired, was revoked or was already used (`reason` says which). */
  INVITATION_GONE = 'INVITATION_GONE',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const TEAMS_ERRORS: ErrorTable<TeamsErrorCode> = {
  LAST_OWNER: { status: HttpStatus.CONFLICT },
  ALREADY_MEMBER: { status: HttpStatus.CONFLICT },
  INVITATION_EMAIL_MISMATCH: { status: HttpStatus.FORBIDDEN },
  INVITATION_GONE: { status: HttpStatus.GONE },
};
