import type { Request } from 'express';
import { AppError, CommonErrorCode } from '../errors/app-error';
import { SESSION_COOKIE } from './session-user';

/** Methods that may change state: only these are checked (GET, HEAD and OPTIONS never are). */
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Cross-site request forgery rule for the session cookie. A request is cookie-authenticated
 * when it carries the `session_token` cookie and no `Authorization` header (a Bearer token or
 * API key wins over the cookie, and a browser never adds one on its own). Such a POST, PUT,
 * PATCH or DELETE must come from an allowed origin:
 * - `Origin` present: it must be the service's own origin (`APP_BASE_URL`, or the scheme and
 *   Host the request arrived on) or one of `CORS_ORIGINS`; `Origin: null` never is;
 * - `Origin` absent (older browsers, curl): refused only when `Sec-Fetch-Site: cross-site`.
 * `allowed` holds lower-case origins (`https://app.example`). True when the request breaks the
 * rule: a protected route then answers 403 (`crossSiteRefused`), a public one reads no session.
 */
export function isCrossSiteCookieWrite(req: Request, allowed: ReadonlySet<string>): boolean {
  if (!UNSAFE_METHODS.has(req.method)) return false;
  if (req.headers.authorization || !req.cookies?.[SESSION_COOKIE]) return false;
  const origin = req.headers.origin;
  if (origin === undefined) return req.headers['sec-fetch-site'] === 'cross-site';
  const own = `${req.protocol}://${req.get('host') ?? ''}`.toLowerCase();
  const sent = origin.toLowerCase();
  return sent === 'null' || (sent !== own && !allowed.has(sent));
}

/** The 403 FORBIDDEN of a cookie-authenticated write from a foreign origin. */
export function crossSiteRefused(): AppError {
  return new AppError(CommonErrorCode.FORBIDDEN, 'Cross-site request refused');
}

/** Lower-case origins of `baseUrl` and every `corsOrigins` entry that parses as a URL. */
export function allowedOrigins(baseUrl: string, corsOrigins: string[]): Set<string> {
  const origins = new Set<string>();
  for (const value of [baseUrl, ...corsOrigins]) {
    try {
      origins.add(new URL(value).origin.toLowerCase());
    } catch {
      // Not a URL: it can never equal a browser's Origin header.
    }
  }
  return origins;
}
