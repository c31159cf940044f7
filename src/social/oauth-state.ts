import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SocialProviderId } from './social.interface';

/** How long a sign-in may spend at the provider: 10 minutes, in seconds. */
export const STATE_TTL_SECONDS = 600;

/** The cookie that binds a sign-in's state to the browser that started it. */
export const stateCookieName = (provider: SocialProviderId): string => `oauth_state_${provider}`;

/**
 * Signed cookie content: provider, nonce (the `state` sent out), callbackUrl, expiry (ms), and
 * the referral code of a sign-up link.
 */
interface StatePayload {
  p: SocialProviderId;
  n: string;
  c?: string;
  e: number;
  r?: string;
}

export interface IssuedState {
  /** Sent to the provider as `state`; comes back on the callback. */
  state: string;
  /** Value of the state cookie: `<payload>.<HMAC-SHA256>`, both base64url. */
  cookie: string;
}

// Domain-separated from every other use of AUTH_SECRET.
const sign = (secret: string, payload: string): Buffer =>
  createHmac('sha256', secret).update(`oauth-state.${payload}`).digest();

const sameBytes = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);

/**
 * A fresh state for one sign-in with `provider`: a 256-bit random nonce, and a cookie signed
 * with `secret` that carries it with the accepted `callbackUrl` and the referral code `ref`.
 * `now` in milliseconds.
 */
export function issueState(
  secret: string,
  provider: SocialProviderId,
  callbackUrl: string | undefined,
  now = Date.now(),
  ref?: string,
): IssuedState {
  const state = randomBytes(32).toString('base64url');
  const payload: StatePayload = {
    p: provider,
    n: state,
    c: callbackUrl,
    e: now + STATE_TTL_SECONDS * 1000,
    r: ref,
  };
  const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return { state, cookie: `${encoded}.${sign(secret, encoded).toString('base64url')}` };
}

/**
 * Checks a callback's `state` against the state cookie (constant-time). Returns the callbackUrl
 * and referral code stored at sign-in (`{}` when none), or null when the cookie is missing, forged, expired or
 * for another provider, or `state` is not its nonce (CSRF: a code started in another browser).
 */
export function verifyState(
  secret: string,
  provider: SocialProviderId,
  cookie: unknown,
  state: unknown,
  now = Date.now(),
): { callbackUrl?: string; ref?: string } | null {
  if (typeof cookie !== 'string' || typeof state !== 'string' || !state) return null;
  const [encoded, signature, extra] = cookie.split('.');
  if (!encoded || !signature || extra !== undefined) return null;
  if (!sameBytes(Buffer.from(signature, 'base64url'), sign(secret, encoded))) return null;
  let payload: StatePayload;
  try {
    payload = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as StatePayload;
  } catch {
    return null;
  }
  if (payload.p !== provider || typeof payload.e !== 'number' || payload.e <= now) return null;
  if (!sameBytes(Buffer.from(state), Buffer.from(String(payload.n)))) return null;
  return {
    ...(typeof payload.c === 'string' ? { callbackUrl: payload.c } : {}),
    ...(typeof payload.r === 'string' ? { ref: payload.r } : {}),
  };
}
