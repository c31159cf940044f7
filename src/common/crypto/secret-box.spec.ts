import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('SecretBox (AES-256-GCM under ENCRYPTION_KEY)', () => {
  const key = randomBytes(32).toString('base64');
  const box = new SecretBox(key);

  it('opens what it sealed, with a fresh IV each time', () => {
    const a = box.seal('JBSWY3DPEHPK3PXP', 'user-1');
    const b = box.seal('JBSWY3DPEHPK3PXP', 'user-1');
    expect(a).not.toBe(b);
    expect(a).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box.open(a, 'user-1')).toBe('JBSWY3DPEHPK3PXP');
  });

  it('refuses another context, another key, and any changed byte', () => {
    const sealed = box.seal('secret', 'user-1');
    expect(() => box.open(sealed, 'user-2')).toThrow();
    expect(() =>
      new SecretBox(randomBytes(32).toString('base64')).open(sealed, 'user-1'),
    ).toThrow();
    const [v, iv, tag, body] = sealed.split('.');
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] ^= 1;
    expect(() =>
      box.open([v, iv, tag, flipped.toString('base64url')].join('.'), 'user-1'),
    ).toThrow();
    expect(() => box.open('v1.x', 'user-1')).toThrow();
  });

  it('keys its MACs and refuses a key that is not 32 bytes', () => {
    expect(box.mac('p', 'v')).toMatch(/^[0-9a-f]{64}$/);
    expect(box.mac('p', 'v')).not.toBe(
      new SecretBox(randomBytes(32).toString('base64')).mac('p', 'v'),
    );
    expect(box.mac('p', 'v')).not.toBe(box.mac('q', 'v'));
    expect(() => new SecretBox(randomBytes(16).toString('base64'))).toThrow();
  });
});
