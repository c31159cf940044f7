import { SetMetadata } from '@nestjs/common';

/**
 * What a personal API key may reach. A route is reachable with a key only when it
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
