import type { PresentedError } from '../common/errors/error-presenter';

/** The Messages API: it and every path under it answer in Anthropic's error shape. */
export const ANTHROPIC_PATH = '/v1/messages';

/** Whether `path` is answered in Anthropic's error shape: `/v1/messages` or a path under it. */
export function isAnthropicPath(path: string): boolean {
  return path === ANTHROPIC_PATH || path.startsWith(`${ANTHROPIC_PATH}/`);
}

/**
 * Anthropic's error `type` for a status, so the Anthropic SDK and Claude Code classify our
 * errors as theirs (the SDK picks its error class by status: 402 is its PaymentRequiredError,
 * 529 and 503 its OverloadedError and ServiceUnavailableError).
 */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 408:
    case 504:
      return 'timeout_error';
    case 409:
      return 'conflict_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
  }
  return status >= 500 ? 'api_error' : 'invalid_request_error';
}

/** The body of an Anthropic error: `{type: "error", error: {type, message, details}}`. */
export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string; details: Record<string, unknown> };
}

/**
 * An error of the `/v1/messages` routes in Anthropic's shape. `details.error_code` is our code
 * lower-cased (the Anthropic SDK exposes it as `err.errorCode`), with `param` (the request field
 * at fault, when known) and our details (e.g. `required`, `balance`, `resetsAt`).
 */
export function anthropicErrorBody(body: PresentedError, param: string | null): AnthropicErrorBody {
  return {
    type: 'error',
    error: {
      type: anthropicErrorType(body.status),
      message: body.error,
      details: {
        error_code: body.code.toLowerCase(),
        ...(param ? { param } : {}),
        ...body.details,
      },
    },
  };
}
