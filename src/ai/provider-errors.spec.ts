import { ProviderError, UpstreamsBusyError } from './providers/model-provider';
import { classifyProviderError } from './provider-errors';

describe('classifyProviderError', () => {
  it.each([
    [401, 'INVALID_API_KEY', 401],
    [429, 'RATE_LIMIT', 429],
    [500, 'SERVICE_UNAVAILABLE', 500],
    [400, 'UNKNOWN_ERROR', 500],
    [503, 'UNKNOWN_ERROR', 500],
    [undefined, 'UNKNOWN_ERROR', 500],
  ])('upstream %s → %s / %i', (upstream, code, status) => {
    const err = classifyProviderError(
      new ProviderError('anthropic', upstream, 'body with sk-secret'),
    );
    expect(err.code).toBe(code);
    expect(err.status).toBe(status);
    expect(err.message).not.toContain('sk-secret');
  });

  it('answers our upstreams’ ceilings as RATE_LIMIT with the next minute as resetsAt', () => {
    const err = classifyProviderError(
      new UpstreamsBusyError('openai', new Date('2026-11-26T21:00:00Z')),
    );
    expect([err.code, err.status]).toEqual(['RATE_LIMIT', 429]);
    expect(err.details).toEqual({ resetsAt: '2026-11-26T21:00:00.000Z' });
  });
});
