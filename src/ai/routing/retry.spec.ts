import { ProviderError } from '../providers/model-provider';
import { isRetryable, withRetry } from './retry';

const fail = (status?: number, retryAfterMs?: number) =>
  new ProviderError('openai', status, `status ${status}`, retryAfterMs);

describe('withRetry (spec Limits 6)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('waits 1000 ms then 2000 ms, not after the last attempt, then throws the last error', async () => {
    const errors = [fail(500), fail(503), fail(502)];
    const call = jest.fn(async () => {
      throw errors[call.mock.calls.length - 1];
    });
    const done = withRetry(call).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(0);
    expect(call).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(999);
    expect(call).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(call).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(1999);
    expect(call).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(call).toHaveBeenCalledTimes(3);
    expect(await done).toBe(errors[2]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('returns the first success', async () => {
    let n = 0;
    const done = withRetry(async () => {
      if (n++ === 0) throw fail(429);
      return 'ok';
    });
    await jest.advanceTimersByTimeAsync(1000);
    await expect(done).resolves.toBe('ok');
  });

  it('honours a longer Retry-After', async () => {
    const call = jest.fn(async () => {
      if (call.mock.calls.length === 1) throw fail(429, 5000);
      return 'ok';
    });
    const done = withRetry(call);
    await jest.advanceTimersByTimeAsync(4999);
    expect(call).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    await expect(done).resolves.toBe('ok');
  });

  it.each([400, 401, 403, 404])('does not retry %i', async (status) => {
    const call = jest.fn(async () => {
      throw fail(status);
    });
    await expect(withRetry(call)).rejects.toMatchObject({ upstreamStatus: status });
    expect(call).toHaveBeenCalledTimes(1);
  });

  it('classifies what can succeed on retry', () => {
    expect(isRetryable(fail(429))).toBe(true);
    expect(isRetryable(fail(500))).toBe(true);
    expect(isRetryable(fail(undefined))).toBe(true);
    expect(isRetryable(new ProviderError('openai', undefined, 'aborted', undefined, true))).toBe(
      false,
    );
    expect(isRetryable(new Error('bug'))).toBe(false);
  });
});
