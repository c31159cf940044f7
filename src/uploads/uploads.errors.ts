import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the uploads module raises, as `code` in error bodies. */
export enum UploadsErrorCode {
  /** The file would take the user's stored uploads past UPLOAD_QUOTA_BYTES (`quotaBytes`, `usedBytes`). */
  UPLOAD_QUOTA_EXCEEDED = 'UPLOAD_QUOTA_EXCEEDED',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const UPLOADS_ERRORS: ErrorTable<UploadsErrorCode> = {
  UPLOAD_QUOTA_EXCEEDED: { status: HttpStatus.PAYLOAD_TOO_LARGE },
};
