import type { PresentedError } from '../common/errors/error-presenter';

/** OpenAI's error `type` for a status, so OpenAI clients classify our errors as theirs. */
function typeFor(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'insufficient_quota';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/**
 * An error of the `/v1` routes in OpenAI's shape: `{error: {message, type, code,
 * param}}`, `code` our code lower-cased, plus our details (e.g. `required`, `balance`).
 */
export function openAiErrorBody(
  body: PresentedError,
  param: string | null,
): { error: Record<string, unknown> } {
  return {
    error: {
      message: body.error,
      type: typeFor(body.status),
      code: body.code.toLowerCase(),
      param,
      ...body.details,
    },
  };
}
