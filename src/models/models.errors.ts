import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/**
 * The codes the models module (the catalogue and parameter rules) raises,
 * as `code` in error bodies.
 */
export enum ModelsErrorCode {
  /** No available model of that id. */
  UNKNOWN_MODEL = 'UNKNOWN_MODEL',
  /** A model parameter the model's provider does not accept (never silently dropped). */
  UNSUPPORTED_PARAMETER = 'UNSUPPORTED_PARAMETER',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const MODELS_ERRORS: ErrorTable<ModelsErrorCode> = {
  UNKNOWN_MODEL: { status: HttpStatus.BAD_REQUEST },
  UNSUPPORTED_PARAMETER: { status: HttpStatus.BAD_REQUEST },
};
