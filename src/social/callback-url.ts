/** Where a completed social login lands when no acceptable `callbackUrl` was given. */
export const DEFAULT_CALLBACK_URL = '/dashboard';

const originOf = (value: string): string | undefined => {
  try {
    const { protocol, origin } = new URL(value);
    return protocol === 'http:' || protocol === 'https:' ? origin : undefined;
  } catch {
    return undefined;
  }
};

/**
 * `raw` when it is safe to redirect to after sign-in, else undefined (so there is no open
 * redirect):
 * - a path on this site (`/dashboard?tab=1`), returned as that path; `//host` and `/\host` are
 *   not paths;
 * - an absolute http(s) URL whose origin is APP_BASE_URL's or one of CORS_ORIGINS, without
 *   user info, returned normalised.
 * Backslashes and control characters are refused outright: browsers rewrite them.
 */
export function safeCallbackUrl(
  raw: unknown,
  baseUrl: string,
  allowedOrigins: readonly string[],
): string | undefined {
  if (typeof raw !== 'string' || !raw || raw.length > 2048) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(raw)) return undefined;
  const base = originOf(baseUrl);
  if (!base) return undefined;
  if (raw.startsWith('/')) {
    if (raw.startsWith('//')) return undefined;
    const url = new URL(raw, base);
    return url.origin === base ? `${url.pathname}${url.search}${url.hash}` : undefined;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  const allowed = new Set([base, ...allowedOrigins.map(originOf)]);
  return allowed.has(url.origin) ? url.href : undefined;
}
