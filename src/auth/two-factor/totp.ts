import { Secret, TOTP } from 'otpauth';

/** RFC 6238 defaults every authenticator app understands: SHA-1, 6 digits, 30 s steps. */
export const TOTP_PERIOD_SECONDS = 30;
const ALGORITHM = 'SHA1';
const DIGITS = 6;
/** Codes of the step before and after the current one are accepted (clock drift). */
const WINDOW = 1;

/** A new random 160-bit secret (RFC 4226's recommended length), base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/...` URI authenticator apps import, for `issuer` and `account`. */
export function otpauthUrl(secret: string, issuer: string, account: string): string {
  return new TOTP({
    issuer,
    label: account,
    secret: Secret.fromBase32(secret),
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: TOTP_PERIOD_SECONDS,
  }).toString();
}

/** `url` as a QR code, a `data:image/png;base64,...` URL (qrcode is loaded on the first one). */
export function qrCodeDataUrl(url: string): Promise<string> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { toDataURL } = require('qrcode') as typeof import('qrcode');
  return toDataURL(url, { type: 'image/png', errorCorrectionLevel: 'M', margin: 2 });
}

/**
 * The time step (Unix seconds / 30, floored) whose code `code` is, within ±1 step of `now`, or
 * null. The comparison is constant-time (otpauth). Replays are the caller's to refuse: a step
 * may be used once.
 */
export function matchTotpStep(secret: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const timestamp = now.getTime();
  const delta = TOTP.validate({
    token: code,
    secret: Secret.fromBase32(secret),
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: TOTP_PERIOD_SECONDS,
    timestamp,
    window: WINDOW,
  });
  if (delta === null) return null;
  return TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp }) + delta;
}
