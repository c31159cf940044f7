import { ProviderError } from './model-provider';
import { incompleteStream, toProviderError } from './sdk-errors';

describe('toProviderError', () => {
  const abortError = () =>
    Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });

  it('keeps the status and Retry-After, and never the upstream message', () => {
    const err = toProviderError(
      'openai',
      'OpenAI',
      new Error('429 {"key":"sk-secret"}'),
      undefined,
      {
        status: 429,
        retryAfter: '3',
      },
    );
    expect(err).toMatchObject({ providerId: 'openai', upstreamStatus: 429, retryAfterMs: 3000 });
    expect(err.aborted).toBe(false);
    expect(err.message).toBe('OpenAI request failed with status 429');
  });

  it('is aborted when our signal is aborted, whatever the SDK threw', () => {
    const err = toProviderError(
      'google',
      'Gemini',
      new TypeError('terminated'),
      AbortSignal.abort(),
    );
    expect(err).toMatchObject({ aborted: true, upstreamStatus: undefined });
  });

  it('treats an AbortError without our signal as an SDK timeout, not an abort', () => {
    const err = toProviderError('google', 'Gemini', abortError(), new AbortController().signal);
    expect(err).toMatchObject({ aborted: false, message: 'Gemini request timed out' });
  });

  it('passes a ProviderError through', () => {
    const original = new ProviderError('anthropic', 500, 'x');
    expect(toProviderError('anthropic', 'Anthropic', original, undefined)).toBe(original);
  });
});

describe('incompleteStream', () => {
  it('is a network-like failure, or an abort when our signal was aborted', () => {
    expect(incompleteStream('openai', 'OpenAI', undefined)).toMatchObject({
      aborted: false,
      upstreamStatus: undefined,
    });
    expect(incompleteStream('openai', 'OpenAI', AbortSignal.abort())).toMatchObject({
      aborted: true,
    });
  });
});
