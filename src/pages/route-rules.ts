import { isLocale, pickLocale } from './locale';

/**
 * The page-route rules of the spec (Authentication 7 and 8, "Page routes") as one pure
 * decision, shared by the page router (`GET /{locale}/...`) and `GET /api/route-access`.
 */
export type RouteDecision =
  { action: 'allow' } | { action: 'redirect'; location: string } | { action: 'notFound' };

/** What the rules need to know of the session: only whether there is one, and its role. */
export interface RouteSession {
  role?: string | null;
}

/** A request path (with optional query) split for the rules; see `parsePath`. */
export type ParsedPath =
  | { kind: 'invalid' }
  | {
      kind: 'nonPage';
      segments: string[];
      /** True for `_next`, `_vercel` and dotted paths: frontend assets, not service routes. */
      asset: boolean;
    }
  | {
      kind: 'page';
      /** Decoded, non-empty path segments: `/en/dashboard/` → `['en', 'dashboard']`. */
      segments: string[];
      /** Percent-encoded path, dot segments resolved and repeated slashes collapsed. */
      pathname: string;
      /** `?query` as sent, or `''`. */
      search: string;
    };

/** Spec Authentication 8 (`api`, `_next`, `_vercel`) plus our `/uploads/{filename}` files. */
const NON_PAGE_PREFIX = /^\/(?:api|_next|_vercel|uploads)/i;
/** Paths the service itself answers: `/api...`, `/uploads...` and `/health/...` (not pages). */
const SERVICE_PREFIX = /^\/(?:api|uploads)/i;
/**
 * First segments the service answers whole: `/health/...`, and `/v1/...`, the OpenAI wire
 * protocol, where an unknown path must be a JSON 404 for its clients, never a page or redirect.
 */
const SERVICE_ROOTS = new Set(['health', 'v1']);
/** A first segment shaped like a language tag (`fr`, `zh-CN`) is a locale prefix, not a page. */
const LOCALE_LIKE = /^[a-z]{2}(?:[-_][a-z0-9]{2,8})*$/i;
/** Characters no page path may hold once decoded (backslash, C0 controls, DEL). */
const FORBIDDEN_CHARS = /[\\\u0000-\u001f\u007f]/; // eslint-disable-line no-control-regex
/**
 * Spec "Page routes": sign-in, sign-up, unauthorized and payment success never redirect; nor
 * does `share/{token}`, a chat's public read-only link, opened signed out, nor the pages
 * that mailed links open (verification, password reset, email change), often on another device.
 */
export const PUBLIC_PAGES = [
  'auth/signin',
  'auth/signup',
  'auth/verify-email',
  'auth/reset-password',
  'auth/confirm-email',
  'unauthorized',
  'payment/success',
  'share',
];
const MAX_PATH_LENGTH = 2048;

/**
 * Splits `url` (`/path?query`, as in a request line) for the rules. `invalid`: not a path
 * starting with `/`, too long, or undecodable; `nonPage`: a path the page rules skip (starts
 * with `api`, `_next`, `_vercel`, `uploads`, is `/health...` or `/v1/...`, or contains a dot, checked on the
 * decoded path so `%2e` or `%61pi` change nothing); else a page path.
 */
export function parsePath(url: string): ParsedPath {
  if (typeof url !== 'string' || !url.startsWith('/') || url.length > MAX_PATH_LENGTH) {
    return { kind: 'invalid' };
  }
  let parsed: URL;
  let decoded: string;
  try {
    // Prefixing the origin keeps `//host/x` a path; URL resolves `.`/`..` (also `%2e%2e`).
    parsed = new URL(`http://page.invalid${url}`);
    decoded = decodeURIComponent(parsed.pathname);
  } catch {
    return { kind: 'invalid' };
  }
  if (FORBIDDEN_CHARS.test(decoded)) return { kind: 'invalid' };
  const segments = decoded.split('/').filter(Boolean);
  const service =
    SERVICE_PREFIX.test(decoded) || SERVICE_ROOTS.has(segments[0]?.toLowerCase() ?? '');
  if (service || NON_PAGE_PREFIX.test(decoded) || decoded.includes('.')) {
    return { kind: 'nonPage', segments, asset: !service };
  }
  const pathname = parsed.pathname.replace(/\/{2,}/g, '/');
  return { kind: 'page', segments, pathname, search: parsed.search };
}

/**
 * The decision for a request to `url` (`/path?query`):
 * - not a page path (see `parsePath`) → `allow`: the page rules do not apply;
 * - undecodable → `notFound`;
 * - `/` or an unprefixed page path → `redirect` to `/{en|zh}/...` by `acceptLanguage`,
 *   keeping the query;
 * - a first segment shaped like a language tag other than `en`/`zh` → `notFound`;
 * - `/{locale}/dashboard...` without a session → `redirect` to
 *   `/{locale}/auth/signin?callbackUrl=<url-encoded path and query>`;
 * - `/{locale}/admin...` without a session or role `ADMIN` → `redirect` to `/{locale}/unauthorized`;
 * - anything else, including the public pages, → `allow`.
 * Page names compare case-insensitively, so `/en/ADMIN` is guarded too.
 */
export function decideRoute(
  url: string,
  session: RouteSession | null | undefined,
  acceptLanguage: string | undefined,
): RouteDecision {
  const path = parsePath(url);
  if (path.kind === 'invalid') return { action: 'notFound' };
  if (path.kind === 'nonPage') return { action: 'allow' };

  const [first, ...rest] = path.segments;
  if (first === undefined || !isLocale(first)) {
    if (first !== undefined && LOCALE_LIKE.test(first)) return { action: 'notFound' };
    const tail = path.pathname === '/' ? '' : path.pathname;
    return { action: 'redirect', location: `/${pickLocale(acceptLanguage)}${tail}${path.search}` };
  }

  const page = rest.join('/').toLowerCase();
  if (PUBLIC_PAGES.some((p) => page === p || page.startsWith(`${p}/`))) return { action: 'allow' };
  const area = rest[0]?.toLowerCase();
  if (area === 'dashboard' && !session) {
    const callbackUrl = encodeURIComponent(`${path.pathname}${path.search}`);
    return { action: 'redirect', location: `/${first}/auth/signin?callbackUrl=${callbackUrl}` };
  }
  if (area === 'admin' && session?.role !== 'ADMIN') {
    return { action: 'redirect', location: `/${first}/unauthorized` };
  }
  return { action: 'allow' };
}
