import type { Request } from 'express';
import { AppError, ErrorCode } from '../errors/app-error';
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
 * `allowed` holds lower-case origins (`https://app.example`). Throws 403 FORBIDDEN otherwise.
 */
export function assertCookieOrigin(req: Request, allowed: ReadonlySet<string>): void {
  if (!UNSAFE_METHODS.has(req.method)) return;
  if (req.headers.authorization || !req.cookies?.[SESSION_COOKIE]) return;
  const origin = req.headers.origin;
  if (origin === undefined) {
    if (req.headers['sec-fetch-site'] !== 'cross-site') return;
  } else {
    const own = `${req.protocol}://${req.get('host') ?? ''}`.toLowerCase();
    const sent = origin.toLowerCase();
    if (sent !== 'null' && (sent === own || allowed.has(sent))) return;
  }
  throw new AppError(ErrorCode.FORBIDDEN, 'Cross-site request refused');
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
