import { createHash, randomBytes } from 'node:crypto';
import { API_KEY_PREFIX } from '../common/auth/api-scopes';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Base62 characters after `sk-`: 44 × log2(62) ≈ 262 random bits (at least 32 bytes). */
export const KEY_BODY_LENGTH = 44;
/** Characters kept in clear for display and lookup: `sk-` and the first 8 of the body. */
export const KEY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

/**
 * A new key: `sk-` and 44 uniformly random base62 characters. Bytes ≥ 248 are skipped so that
 * `byte % 62` is uniform (248 = 4 × 62).
 */
export function newKeySecret(): string {
  let body = '';
  while (body.length < KEY_BODY_LENGTH) {
    for (const b of randomBytes(64)) {
      if (b < 248 && body.length < KEY_BODY_LENGTH) body += BASE62[b % 62];
    }
  }
  return API_KEY_PREFIX + body;
}

/** True when `value` has the shape of a key (so it is never tried as a session token). */
export function looksLikeKey(value: string): boolean {
  return (
    value.length === API_KEY_PREFIX.length + KEY_BODY_LENGTH &&
    value.startsWith(API_KEY_PREFIX) &&
    /^[0-9A-Za-z]+$/.test(value.slice(API_KEY_PREFIX.length))
  );
}

/** SHA-256 of the key: what is stored (a random 262-bit key needs no slow hash). */
export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function prefixOf(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}
