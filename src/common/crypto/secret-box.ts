import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const derive = (key: Buffer, info: string): Buffer =>
  Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), info, 32));

/**
 * Secrets at rest under ENCRYPTION_KEY (32 bytes): AES-256-GCM sealing and keyed hashes, each
 * with its own HKDF-SHA256 subkey, so one configured key serves both without reuse. A database
 * dump alone reveals neither what was sealed nor what was hashed.
 */
export class SecretBox {
  private readonly sealKey: Buffer;
  private readonly macKey: Buffer;

  /** `keyBase64`: 32 bytes in base64. Throws when it decodes to another length. */
  constructor(keyBase64: string) {
    const key = Buffer.from(keyBase64, 'base64');
    if (key.length !== 32) throw new Error('The encryption key must be 32 bytes');
    this.sealKey = derive(key, 'secret-box/seal/v1');
    this.macKey = derive(key, 'secret-box/mac/v1');
  }

  /**
   * `v1.<iv>.<tag>.<ciphertext>` (base64url parts; 12-byte random IV, 16-byte tag). `context`
   * (e.g. the owner's user id) is authenticated, not stored: a sealed value copied to another
   * row does not open there.
   */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** The plaintext of `sealed`. Throws when it is malformed, tampered with, or for another context or key. */
  open(sealed: string, context: string): string {
    const [version, iv, tag, body, extra] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined || extra !== undefined)
      throw new Error('Not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.sealKey, Buffer.from(iv, 'base64url'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(body, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }

  /** Hex HMAC-SHA256 of `value` for `purpose` (64 characters). */
  mac(purpose: string, value: string): string {
    return createHmac('sha256', this.macKey).update(`${purpose}\0${value}`).digest('hex');
  }

  /** Constant-time equality of two hex MACs. */
  static sameMac(a: string, b: string): boolean {
    const x = Buffer.from(a, 'hex');
    const y = Buffer.from(b, 'hex');
    return x.length === y.length && timingSafeEqual(x, y);
  }
}
