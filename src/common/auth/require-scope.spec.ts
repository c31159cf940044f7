import { AppError, COMMON_ERRORS, CommonErrorCode } from '../errors/app-error';
import type { ApiScope } from './api-scopes';
import { hasScope, requireScope } from './require-scope';
import type { SessionUser } from './session-user';

describe('requireScope: a key acts with its scopes on every resource', () => {
  const session: SessionUser = { id: 'u', email: 'u@example.com', name: null, role: 'USER' };
  const key = (scopes: ApiScope[]): SessionUser => ({
    ...session,
    apiKey: { id: 'k', scopes },
  });

  it('lets a session and a key holding the scope pass', () => {
    expect(() => requireScope(session, 'chats:write', 'chatId')).not.toThrow();
    expect(() => requireScope(key(['ai', 'chats:write']), 'chats:write', 'chatId')).not.toThrow();
    expect(hasScope(key(['ai']), 'ai')).toBe(true);
  });

  it('refuses a key without it: 403 INSUFFICIENT_SCOPE naming the scope', () => {
    let caught: unknown;
    try {
      requireScope(key(['ai']), 'chats:read', 'plugin search_my_chats');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    const err = caught as AppError;
    expect([err.code, COMMON_ERRORS[err.code as CommonErrorCode].status, err.details]).toEqual([
      CommonErrorCode.INSUFFICIENT_SCOPE,
      403,
      { requiredScope: 'chats:read' },
    ]);
    expect(err.message).toBe(
      'This API key lacks the "chats:read" scope that plugin search_my_chats needs',
    );
  });
});
