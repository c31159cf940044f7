import { randomInt } from 'node:crypto';

/** How many recovery codes a set holds. */
export const RECOVERY_CODE_COUNT = 10;

// Crockford-style base32 without look-alikes (no i, l, o, u): 32 symbols, 5 bits each.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const GROUPS = 3;
const GROUP_LENGTH = 4;

/**
 * A fresh set of RECOVERY_CODE_COUNT codes shaped `xxxx-xxxx-xxxx` (12 symbols, 60 bits of
 * entropy each, from the CSPRNG). Shown once; only their keyed hashes are stored.
 *
 * Why a keyed SHA-256 and not bcrypt: the codes are random and 60 bits strong, not chosen by
 * people, so a slow hash adds nothing against guessing (online guesses are rate limited), while
 * an HMAC under ENCRYPTION_KEY makes a dump alone useless and lets one indexed query find the
 * code instead of ten 200 ms bcrypt comparisons.
 */
export function generateRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () =>
    Array.from({ length: GROUPS }, () =>
      Array.from({ length: GROUP_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join(''),
    ).join('-'),
  );
}

/**
 * The canonical form of a typed code: lower case, without spaces or dashes; `o`→0, `i`/`l`→1
 * as read aloud. Null when it cannot be a recovery code (wrong length or symbols).
 */
export function normalizeRecoveryCode(input: string): string | null {
  const code = input.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
  if (code.length !== GROUPS * GROUP_LENGTH) return null;
  return [...code].every((c) => ALPHABET.includes(c)) ? code : null;
}
