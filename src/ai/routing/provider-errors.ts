import { HttpStatus } from '@nestjs/common';
import { AppError, CommonErrorCode } from '../../common/errors/app-error';
import { AiErrorCode } from '../ai.errors';
import { lastOutboundUnanswered } from '../../common/http/outbound-failures';
import { type ProviderError, UpstreamsBusyError } from '../providers/model-provider';

/**
 * The messages `toProviderError` gives a call that got no HTTP answer, or whose answer broke off:
 * the connection was refused, reset or broke, or the call timed out.
 */
const NO_ANSWER = /request (?:timed out|failed: no response or the connection broke)$/;

/**
 * Spec "AI error classification": upstream 401 → INVALID_API_KEY (401), 429 → RATE_LIMIT
 * (429), 500 → SERVICE_UNAVAILABLE (500), anything else → UNKNOWN_ERROR (500); except that a
 * call with no HTTP answer at all (refused, reset or timed-out connection, after every upstream
 * and retry was tried) is UPSTREAM_UNREACHABLE (502), so "the model server is not running" is
 * not an unknown error; an answer that broke off mid-stream stays UNKNOWN_ERROR. The message is ours: the upstream body and the key are never echoed. Our
 * own upstreams' ceilings are a RATE_LIMIT too, with `details.resetsAt` (the next minute, sent
 * as `Retry-After`).
 */
export function classifyProviderError(err: ProviderError): AppError {
  if (err instanceof UpstreamsBusyError)
    return new AppError(
      AiErrorCode.RATE_LIMIT,
      'Every upstream of this model is at its rate ceiling; try again after Retry-After',
      { resetsAt: err.resetsAt.toISOString() },
    );
  if (isUnreachable(err))
    return new AppError(
      AiErrorCode.UPSTREAM_UNREACHABLE,
      'The model provider could not be reached (connection refused, broken or timed out)',
    );
  switch (err.upstreamStatus) {
    case 401:
      return new AppError(
        CommonErrorCode.INVALID_API_KEY,
        'The model provider rejected our API key',
      );
    case 429:
      return new AppError(
        AiErrorCode.RATE_LIMIT,
        'The model provider is rate limiting requests; try again later',
      );
    case 500:
      return new AppError(
        CommonErrorCode.SERVICE_UNAVAILABLE,
        'The model provider is unavailable',
        undefined,
        HttpStatus.INTERNAL_SERVER_ERROR,
      );
    default:
      return new AppError(
        AiErrorCode.UNKNOWN_ERROR,
        'The model provider failed to generate a reply',
      );
  }
}

/**
 * A failure without an HTTP answer: the network message, and (within an incoming request, where
 * undici's events are followed) the latest outbound request got no response headers. A stream
 * that broke after its headers carries the same message, so the events tell the two apart.
 */
function isUnreachable(err: ProviderError): boolean {
  if (err.upstreamStatus !== undefined || err.aborted || !NO_ANSWER.test(err.message)) return false;
  return lastOutboundUnanswered() !== false;
}
