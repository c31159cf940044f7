import { HttpStatus } from '@nestjs/common';
import { AppError, ErrorCode } from '../common/errors/app-error';
import { type ProviderError, UpstreamsBusyError } from './providers/model-provider';

/**
 * Spec "AI error classification": upstream 401 → INVALID_API_KEY (401), 429 → RATE_LIMIT
 * (429), 500 → SERVICE_UNAVAILABLE (500), anything else → UNKNOWN_ERROR (500). The message
 * is ours: the upstream body and the key are never echoed. Our own upstreams' ceilings are a
 * RATE_LIMIT too, with `details.resetsAt` (the next minute, sent as `Retry-After`).
 */
export function classifyProviderError(err: ProviderError): AppError {
  if (err instanceof UpstreamsBusyError)
    return new AppError(
      ErrorCode.RATE_LIMIT,
      'Every upstream of this model is at its rate ceiling; try again after Retry-After',
      { resetsAt: err.resetsAt.toISOString() },
    );
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
