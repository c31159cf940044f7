import { ProviderError, UpstreamsBusyError } from '../providers/model-provider';

export interface RetryOptions {
  /** Attempts in all (spec Limits 6: 3). */
  attempts?: number;
  /** Wait after failed attempt i is `baseDelayMs * 2^i` (spec: 1000 ms). */
  baseDelayMs?: number;
  /** Injected for tests; defaults to setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Worth another attempt: upstream 429, 5xx, or a network error; never 4xx, our own abort, or
 * upstreams at their own ceilings (UpstreamsBusyError).
 */
export function isRetryable(err: unknown): boolean {
  if (!(err instanceof ProviderError) || err.aborted || err instanceof UpstreamsBusyError)
    return false;
  const status = err.upstreamStatus;
  return status === undefined || status === 429 || status >= 500;
}

/**
 * Spec Limits 6: up to `attempts` tries, waiting `baseDelayMs * 2^i` after failed attempt i
 * (or the upstream's longer `Retry-After`), no wait after the last; the last error is thrown.
 * Errors that cannot succeed on retry are thrown at once.
 */
export async function withRetry<T>(call: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { attempts = 3, baseDelayMs = 1000, sleep = defaultSleep } = options;
  for (let i = 0; ; i++) {
    try {
      return await call();
    } catch (err) {
      if (i >= attempts - 1 || !isRetryable(err)) throw err;
      const backoff = baseDelayMs * 2 ** i;
      await sleep(Math.max(backoff, (err as ProviderError).retryAfterMs ?? 0));
    }
  }
}
