import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { sharedConfig } from '../config/shared.config';
import { uploadsConfig } from './uploads.config';
import { Clock } from '../common/clock/clock';

/** HKDF label of the link key: a key of its own, so a link MAC is never a session signature. */
const KEY_INFO = 'ai-chat upload links v1';
/** Expiry times accepted in a link: Unix seconds as written by `link` (digits, no leading 0). */
const EXP_PATTERN = /^[1-9]\d{0,11}$/;
/** A signature as `sign` writes it: 32 bytes of HMAC-SHA256 in unpadded base64url. */
const SIG_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A signed download link and the moment it stops working. */
export interface SignedLink {
  /** `/uploads/<encodeURIComponent(filename)>?exp=<unix seconds>&sig=<base64url>`, relative. */
  url: string;
  expiresAt: Date;
}

/**
 * Signed download links of uploads: whoever holds one may download that one file
 * until it expires, without a session, on either storage driver (the app streams the bytes from
 * S3 too; no S3 presigned URLs). The signature is HMAC-SHA256 over `<filename>\n<exp>` with a
 * key derived from AUTH_SECRET by HKDF, so no variable is added and rotating AUTH_SECRET ends
 * every link. "Now" comes from the Clock; links live UPLOAD_URL_TTL_SECONDS.
 */
@Injectable()
export class UploadLinks {
  private readonly key: Buffer;
  private readonly ttlSeconds: number;

  constructor(
    @Inject(sharedConfig.KEY) shared: ConfigType<typeof sharedConfig>,
    @Inject(uploadsConfig.KEY) uploads: ConfigType<typeof uploadsConfig>,
    private readonly clock: Clock,
  ) {
    const secret = shared.authSecret;
    // loadConfig resolves AUTH_SECRET (configured, or the development one) before modules boot.
    if (!secret) throw new Error('UploadLinks needs AUTH_SECRET');
    this.key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), KEY_INFO, 32));
    this.ttlSeconds = uploads.urlTtlSeconds;
  }

  /**
   * The relative URL `/uploads/<encodeURIComponent(filename)>?exp=…&sig=…` that serves
   * `filename` (a stored name) to anyone until UPLOAD_URL_TTL_SECONDS from now.
   */
  signedUrl(filename: string): string {
    return this.link(filename).url;
  }

  /** The signed URL of `filename` (see `signedUrl`) with its expiry time. */
  link(filename: string): SignedLink {
    const exp = Math.floor(this.clock.now().getTime() / 1000) + this.ttlSeconds;
    const query = `exp=${exp}&sig=${this.sign(filename, exp)}`;
    return {
      url: `/uploads/${encodeURIComponent(filename)}?${query}`,
      expiresAt: new Date(exp * 1000),
    };
  }

  /**
   * Whether `exp` and `sig` (query values as received: anything, usually strings) are a link
   * to `filename` (as decoded from the path) signed by us and `exp` (Unix seconds) is still in
   * the future. Malformed values are simply false; the signature is compared in constant time.
   */
  verify(filename: string, exp: unknown, sig: unknown): boolean {
    if (typeof exp !== 'string' || typeof sig !== 'string') return false;
    if (!EXP_PATTERN.test(exp) || !SIG_PATTERN.test(sig)) return false;
    const expSeconds = Number(exp);
    if (expSeconds * 1000 <= this.clock.now().getTime()) return false;
    // Compared as text: decoding first would accept several spellings of one signature.
    const want = Buffer.from(this.sign(filename, expSeconds), 'ascii');
    return timingSafeEqual(want, Buffer.from(sig, 'ascii'));
  }

  /** HMAC-SHA256 of `<filename>\n<exp>` in unpadded base64url (43 characters). */
  private sign(filename: string, expSeconds: number): string {
    return createHmac('sha256', this.key).update(`${filename}\n${expSeconds}`).digest('base64url');
  }
}
