import { ProviderError, retryAfterMs } from './model-provider';

/** What an adapter could read from its SDK's error: the upstream status and `Retry-After`. */
export interface UpstreamFailure {
  status?: number;
  retryAfter?: string | null;
  /** The SDK's own "aborted by the caller" error class matched (e.g. APIUserAbortError). */
  userAbort?: boolean;
  /** The SDK's timeout error class matched (e.g. APIConnectionTimeoutError). */
  timedOut?: boolean;
}

/**
 * Converts any error thrown by an SDK call into a ProviderError.
 *
 * - `aborted` is true only when the caller's `signal` is aborted (or the SDK reports a user
 *   abort): an AbortError on its own can be an SDK timeout, which is a retryable failure.
 * - The message names the provider and the status only: never the upstream body (it can echo
 *   the prompt or, from some compatible servers, the key) nor the SDK's own message.
 * - A ProviderError passes through unchanged.
 */
export function toProviderError(
  providerId: string,
  label: string,
  err: unknown,
  signal: AbortSignal | undefined,
  upstream: UpstreamFailure = {},
): ProviderError {
  if (err instanceof ProviderError) return err;
  if (signal?.aborted || upstream.userAbort) return abortedError(providerId, label);
  const { status } = upstream;
  // An AbortError without our signal aborted is the SDK's own timeout (Gemini aborts on timeout).
  const timedOut =
    upstream.timedOut || (err instanceof Error && /^(AbortError|TimeoutError)$/.test(err.name));
  return new ProviderError(
    providerId,
    status,
    status
      ? `${label} request failed with status ${status}`
      : timedOut
        ? `${label} request timed out`
        : `${label} request failed: no response or the connection broke`,
    retryAfterMs(upstream.retryAfter),
  );
}

/**
 * Thrown by a stream that ended cleanly but without the provider's end marker (OpenAI
 * `finish_reason`, Anthropic `message_stop`, Gemini `finishReason`): a truncated reply is a
 * failure, never a success. When our own signal was aborted, the SDKs end the stream silently;
 * that becomes an aborted ProviderError here too.
 */
export function incompleteStream(
  providerId: string,
  label: string,
  signal: AbortSignal | undefined,
): ProviderError {
  return signal?.aborted
    ? abortedError(providerId, label)
    : new ProviderError(
        providerId,
        undefined,
        `${label} stream ended before the reply was complete`,
      );
}

function abortedError(providerId: string, label: string): ProviderError {
  return new ProviderError(providerId, undefined, `${label} request was aborted`, undefined, true);
}

/** Thrown by every call of an adapter whose API key is not set. */
export function notConfigured(providerId: string, label: string): ProviderError {
  return new ProviderError(providerId, undefined, `${label} is not configured`);
}
