import type { Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import type { OAuthTestServer } from '../servers/oauth-server';

export type Provider = 'google' | 'github';

/** `Set-Cookie` line of `name`, if the response set one. */
export const setCookie = (res: Response, name: string): string | undefined =>
  ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
export const pair = (line: string | undefined) => line?.split(';')[0] ?? '';

export interface Dance {
  /** The answer of GET /api/auth/callback/{provider}. */
  res: Response;
  location: string;
  /** `session_token=…` pair, when a session was started. */
  session?: string;
}

export interface DanceOptions {
  callbackUrl?: string;
  /** A referral code sent as `?ref=` to the sign-in. */
  ref?: string;
  /** Replace the state cookie sent back (null: send none). */
  cookie?: string | null;
  /** Edit the provider's redirect back before following it. */
  tamper?: (back: URL) => void;
}

/**
 * One browser's whole redirect dance: sign-in → provider authorization (approves at once)
 * → callback carrying the state cookie, each redirect followed by hand.
 */
export async function oauthDance(
  http: TestAgent,
  oauth: OAuthTestServer,
  provider: Provider,
  opts: DanceOptions = {},
): Promise<Dance> {
  const query = {
    ...(opts.callbackUrl === undefined ? {} : { callbackUrl: opts.callbackUrl }),
    ...(opts.ref === undefined ? {} : { ref: opts.ref }),
  };
  const start = await http.get(`/api/auth/signin/${provider}`).query(query).expect(302);
  expect(start.headers.location.startsWith(`${oauth.url}/${provider}/`)).toBe(true);
  const approved = await fetch(start.headers.location, { redirect: 'manual' });
  expect(approved.status).toBe(302);
  const back = new URL(approved.headers.get('location')!);
  expect(back.origin + back.pathname).toBe(`http://localhost:3000/api/auth/callback/${provider}`);
  opts.tamper?.(back);
  const cookie =
    opts.cookie === undefined ? pair(setCookie(start, `oauth_state_${provider}`)) : opts.cookie;
  const req = http.get(back.pathname + back.search);
  const res = await (cookie ? req.set('Cookie', cookie) : req).expect(302);
  const session = setCookie(res, 'session_token');
  return { res, location: res.headers.location, session: session && pair(session) };
}
