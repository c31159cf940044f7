import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/**
 * The codes the ai module (model calls; spec "AI error classification") raises,
 * as `code` in error bodies.
 */
export enum AiErrorCode {
  /**
   * The model provider is rate limiting us (its 429), or every upstream of the model is at its
   * rate ceiling (`resetsAt`, sent as Retry-After).
   */
  RATE_LIMIT = 'RATE_LIMIT',
  /** The model provider failed otherwise, or its answer broke off mid-stream. */
  UNKNOWN_ERROR = 'UNKNOWN_ERROR',
  /** The model provider failed (kept for clients that match on it). */
  PROVIDER_ERROR = 'PROVIDER_ERROR',
  /**
   * Images to a model without `vision`, plugins to one without `tools`, or a chat model to
   * `/v1/embeddings`.
   */
  MODEL_CAPABILITY_MISSING = 'MODEL_CAPABILITY_MISSING',
  /**
   * No upstream of the model gave an HTTP answer (connection refused, reset or timed out),
   * after every upstream and retry was tried.
   */
  UPSTREAM_UNREACHABLE = 'UPSTREAM_UNREACHABLE',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const AI_ERRORS: ErrorTable<AiErrorCode> = {
  RATE_LIMIT: { status: HttpStatus.TOO_MANY_REQUESTS },
  UNKNOWN_ERROR: { status: HttpStatus.INTERNAL_SERVER_ERROR },
  PROVIDER_ERROR: { status: HttpStatus.INTERNAL_SERVER_ERROR },
  MODEL_CAPABILITY_MISSING: { status: HttpStatus.BAD_REQUEST },
  UPSTREAM_UNREACHABLE: { status: HttpStatus.BAD_GATEWAY },
};
