import { HttpStatus } from '@nestjs/common';
import { AppError, ErrorCode } from '../common/errors/app-error';
import type { ProviderError } from './providers/model-provider';

/**
 * Spec "AI error classification": upstream 401 → INVALID_API_KEY (401), 429 → RATE_LIMIT
 * (429), 500 → SERVICE_UNAVAILABLE (500), anything else → UNKNOWN_ERROR (500). The message
 * is ours: the upstream body and the key are never echoed.
 */
export function classifyProviderError(err: ProviderError): AppError {
  switch (err.upstreamStatus) {
    case 401:
      return new AppError(ErrorCode.INVALID_API_KEY, 'The model provider rejected our API key');
    case 429:
      return new AppError(
        ErrorCode.RATE_LIMIT,
        'The model provider is rate limiting requests; try again later',
      );
    case 500:
      return new AppError(
        ErrorCode.SERVICE_UNAVAILABLE,
        'The model provider is unavailable',
        undefined,
        HttpStatus.INTERNAL_SERVER_ERROR,
      );
    default:
      return new AppError(ErrorCode.UNKNOWN_ERROR, 'The model provider failed to generate a reply');
  }
}
