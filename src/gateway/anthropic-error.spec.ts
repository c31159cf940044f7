import { anthropicErrorBody, anthropicErrorType, isAnthropicPath } from './anthropic-error';

describe("Anthropic's error shape", () => {
  it('covers /v1/messages and what lies under it, not the other /v1 routes', () => {
    expect(isAnthropicPath('/v1/messages')).toBe(true);
    expect(isAnthropicPath('/v1/messages/count_tokens')).toBe(true);
    expect(isAnthropicPath('/v1/messagesx')).toBe(false);
    expect(isAnthropicPath('/v1/chat/completions')).toBe(false);
  });

  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [402, 'billing_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [413, 'request_too_large'],
    [415, 'invalid_request_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [502, 'api_error'],
    [503, 'overloaded_error'],
    [529, 'overloaded_error'],
    [504, 'timeout_error'],
  ])('names status %i %s', (status, type) => {
    expect(anthropicErrorType(status)).toBe(type);
  });

  it('carries our code lower-cased as details.error_code, the param and our details', () => {
    const body = anthropicErrorBody(
      { status: 402, code: 'INSUFFICIENT_CREDITS', error: 'Not enough', details: { balance: 3 } },
      'max_tokens',
    );
    expect(body).toEqual({
      type: 'error',
      error: {
        type: 'billing_error',
        message: 'Not enough',
        details: { error_code: 'insufficient_credits', param: 'max_tokens', balance: 3 },
      },
    });
    expect(
      anthropicErrorBody({ status: 401, code: 'UNAUTHORIZED', error: 'x' }, null).error.details,
    ).toEqual({
      error_code: 'unauthorized',
    });
  });
});
