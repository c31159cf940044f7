import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the gateway (the `/v1` wire protocols) raises, as `code` in error bodies. */
export enum GatewayErrorCode {
  /** `/v1/models/{model}`: no available model of that id (OpenAI's `model_not_found`). */
  MODEL_NOT_FOUND = 'MODEL_NOT_FOUND',
  /**
   * `/v1/responses`: `previous_response_id` names no stored response of the caller (unknown,
   * not stored, or another user's; OpenAI's `previous_response_not_found`).
   */
  PREVIOUS_RESPONSE_NOT_FOUND = 'PREVIOUS_RESPONSE_NOT_FOUND',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const GATEWAY_ERRORS: ErrorTable<GatewayErrorCode> = {
  MODEL_NOT_FOUND: { status: HttpStatus.NOT_FOUND },
  PREVIOUS_RESPONSE_NOT_FOUND: { status: HttpStatus.BAD_REQUEST },
};
