import { randomInt } from 'node:crypto';

/**
 * Code characters: capitals and digits without the look-alikes 0/O, 1/I/L (31 symbols), so a
 * code read aloud or copied by hand comes out right. 31^8 ≈ 8.5 × 10^11 codes.
 */
export const REFERRAL_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const REFERRAL_CODE_LENGTH = 8;

/** A fresh random code (crypto RNG, uniform over the alphabet). */
export function generateReferralCode(): string {
  let code = '';
  for (let i = 0; i < REFERRAL_CODE_LENGTH; i++)
    code += REFERRAL_ALPHABET[randomInt(REFERRAL_ALPHABET.length)];
  return code;
}

/**
 * A code as typed or carried in a link, trimmed and upper-cased; null when it cannot be a code
 * (wrong length or a character outside the alphabet), so it is ignored without a lookup.
 */
export function normaliseReferralCode(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const code = value.trim().toUpperCase();
  if (code.length !== REFERRAL_CODE_LENGTH) return null;
  return [...code].every((c) => REFERRAL_ALPHABET.includes(c)) ? code : null;
}

/** A referred user's name as shown to the referrer: first character and `***`; null stays null. */
export function maskName(name: string | null): string | null {
  const first = name?.trim() ? [...name.trim()][0] : undefined;
  return first ? `${first}***` : null;
}
