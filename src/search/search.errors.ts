import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the search module raises, as `code` in error bodies. */
export enum SearchErrorCode {
  /** `mode=semantic` while no embeddings model (EMBEDDINGS_MODEL) is configured or available. */
  SEMANTIC_SEARCH_UNAVAILABLE = 'SEMANTIC_SEARCH_UNAVAILABLE',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const SEARCH_ERRORS: ErrorTable<SearchErrorCode> = {
  SEMANTIC_SEARCH_UNAVAILABLE: { status: HttpStatus.BAD_REQUEST },
};
