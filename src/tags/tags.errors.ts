import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the tags module raises, as `code` in error bodies. */
export enum TagsErrorCode {
  /** The caller already has a tag of that name (case-insensitively). */
  TAG_NAME_TAKEN = 'TAG_NAME_TAKEN',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const TAGS_ERRORS: ErrorTable<TagsErrorCode> = {
  TAG_NAME_TAKEN: { status: HttpStatus.CONFLICT },
};
