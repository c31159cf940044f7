import type { CookieOptions } from 'express';

export { SESSION_COOKIE } from '../common/auth/session-user';

/** httpOnly, SameSite=Lax, Secure when the app is served over https; `maxAge` in seconds. */
export function sessionCookieOptions(baseUrl: string, maxAgeSeconds?: number): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: baseUrl.startsWith('https://'),
    path: '/',
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds * 1000 } : {}),
  };
}
