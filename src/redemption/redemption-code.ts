import { createHash, randomBytes } from 'node:crypto';

/** Crockford's base32 alphabet: no I, L, O or U, so a code read aloud or retyped survives. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Characters of a code: 20 × 5 = 100 random bits. */
export const CODE_CHARS = 20;
/** Characters between two hyphens of the printed form. */
const GROUP = 4;
const NORMAL = /^[0-9A-HJKMNP-TV-Z]{20}$/;

/**
 * A new code in its printed form, `XXXX-XXXX-XXXX-XXXX-XXXX`: 20 Crockford base32 characters,
 * each from one random byte's low 5 bits (256 is a multiple of 32, so every character is
 * uniform), 100 random bits in all.
 */
export function newRedemptionCode(): string {
  const bytes = randomBytes(CODE_CHARS);
  const chars = [...bytes].map((b) => ALPHABET[b & 31]).join('');
  return chars.match(new RegExp(`.{${GROUP}}`, 'g'))!.join('-');
}

/**
 * The code as typed, in the form its hash is taken of: upper-cased, without spaces or hyphens,
 * with Crockford's look-alikes read as digits (I and L as 1, O as 0). Null when what is left is
 * not 20 characters of the alphabet (then it can be no code of ours).
 */
export function normaliseRedemptionCode(typed: string): string | null {
  const code = typed.toUpperCase().replace(/[\s-]/g, '').replace(/[IL]/g, '1').replace(/O/g, '0');
  return NORMAL.test(code) ? code : null;
}

/** Hex SHA-256 of a normalised code: what `redemption_codes.codeHash` stores (64 characters). */
export function hashRedemptionCode(normalised: string): string {
  return createHash('sha256').update(normalised, 'utf8').digest('hex');
}
