import { AppError, CommonErrorCode } from '../errors/app-error';
import type { ApiScope } from './api-scopes';
import type { SessionUser } from './session-user';

/** True when `user` may act with `scope`: a session always, an API key when it holds it. */
export function hasScope(user: SessionUser, scope: ApiScope): boolean {
  return !user.apiKey || user.apiKey.scopes.includes(scope);
}

/**
 * The rule that a key acts with its scopes on every resource a request touches, not only at
 * the route: services call this where they read or write another resource on the caller's
 * behalf (a chat named by `chatId` needs `chats:write`, a tool that reads chats `chats:read`).
 * Sessions pass. Throws INSUFFICIENT_SCOPE (403, `details.requiredScope`) for a key without
 * `scope`; `what` names the resource in the message (e.g. "chatId").
 */
export function requireScope(user: SessionUser, scope: ApiScope, what: string): void {
  if (hasScope(user, scope)) return;
  throw new AppError(
    CommonErrorCode.INSUFFICIENT_SCOPE,
    `This API key lacks the "${scope}" scope that ${what} needs`,
    { requiredScope: scope },
  );
}
