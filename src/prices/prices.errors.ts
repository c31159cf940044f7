import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the prices module raises, as `code` in error bodies. */
export enum PricesErrorCode {
  /** The model has no price in force and no fallback price is set (never billed 0). */
  MODEL_NOT_PRICED = 'MODEL_NOT_PRICED',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const PRICES_ERRORS: ErrorTable<PricesErrorCode> = {
  MODEL_NOT_PRICED: { status: HttpStatus.BAD_REQUEST },
};
