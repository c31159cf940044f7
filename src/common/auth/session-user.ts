import type { Locale } from '../../i18n/locale';
import type { Role } from '../../users/user.entity';
import type { ApiScope } from './api-scopes';

/**
 * The stored preferences' shape. Empty here: the users module, which owns preferences, declares
 * its fields by module augmentation (as Passport's `Express.User`), so common names no feature.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SessionPreferences {}

/** Spec "Session user": the authenticated caller, attached to the request by the JWT guard. */
export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  /** Session expiry in Unix seconds (the token's `exp`). */
  exp?: number;
  /**
   * The user's plan, read with the session or the API key (FREE, BASIC, PRO, or a value this
   * version does not know); absent where no such row was read.
   */
  plan?: string;
  /** The language stored in the user's preferences; used when a request names none. */
  locale?: Locale;
  /**
   * The stored preferences (null: none yet), read with the session in the same statement, so
   * metered requests need no query of their own for them. Absent for API-key callers.
   */
  preferences?: SessionPreferences | null;
  /** The session's id (`sid`, a row of `sessions`); absent for API-key callers. */
  sessionId?: string;
  /**
   * Set when the caller authenticated with an API key instead of a session; `teamId` when it is
   * a team's key (its calls spend from that team's pool).
   */
  apiKey?: { id: string; scopes: ApiScope[]; teamId?: string };
}

/**
 * Claims of the HS256 session token: `sub` is the user id; `ver` the user's token version when
 * it was issued (absent in tokens made before token versions existed: version 0); `sid` the
 * session's row in `sessions` (a token without one is refused); `iat`/`exp` in Unix seconds. A
 * session token has no `typ`: tokens with one (the two-factor `mfa` token) are not sessions.
 */
export interface SessionTokenPayload {
  sub: string;
  role: Role;
  ver?: number;
  sid?: string;
  typ?: string;
  iat?: number;
  exp?: number;
}

/** Name of the httpOnly cookie that carries the session token. */
export const SESSION_COOKIE = 'session_token';
