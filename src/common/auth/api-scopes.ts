import { SetMetadata } from '@nestjs/common';
import { AppError, ErrorCode } from '../errors/app-error';
import type { SessionUser } from './session-user';

/**
 * What a personal API key may reach (issue 14). A route is reachable with a key only when it
 * names one of these with `@Endpoint({scope})`; every other route (account, keys, two-factor,
 * payments, teams administration, admin) answers a key 403 INSUFFICIENT_SCOPE.
 */
export const API_SCOPES = ['ai', 'chats:read', 'chats:write', 'credits:read'] as const;
export type ApiScope = (typeof API_SCOPES)[number];

/** Scopes of a key created without `scopes`. */
export const DEFAULT_API_SCOPES: ApiScope[] = ['ai', 'chats:read'];

export const API_SCOPE_KEY = 'apiKeyScope';

/** The scope an API key needs for this route (set by `@Endpoint({scope})`). */
export const RequiresScope = (scope: ApiScope) => SetMetadata(API_SCOPE_KEY, scope);

/** Marks an `Authorization: Bearer` value as an API key rather than a session token. */
export const API_KEY_PREFIX = 'sk-';

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
    ErrorCode.INSUFFICIENT_SCOPE,
    `This API key lacks the "${scope}" scope that ${what} needs`,
    { requiredScope: scope },
  );
}
