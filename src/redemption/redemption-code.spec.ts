import { hashRedemptionCode, newRedemptionCode, normaliseRedemptionCode } from './redemption-code';

describe('redemption codes', () => {
  it('prints 20 Crockford base32 characters in five groups of four', () => {
    const code = newRedemptionCode();
    expect(code).toMatch(/^([0-9A-HJKMNP-TV-Z]{4}-){4}[0-9A-HJKMNP-TV-Z]{4}$/);
  });

  it('draws every character of the alphabet (uniform bytes, no character left out)', () => {
    const seen = new Set(Array.from({ length: 200 }, newRedemptionCode).join('').replace(/-/g, ''));
    expect(seen.size).toBe(32);
  });

  it('reads a code typed with spaces, lower case and look-alikes as the printed one', () => {
    const code = 'AB1C-D0EF-GH1J-KMNP-QRST';
    expect(normaliseRedemptionCode(' ab1c d0ef-ghlj kmnp QRST ')).toBe(code.replace(/-/g, ''));
    expect(normaliseRedemptionCode('abic-doef-ghij-kmnp-qrst')).toBe(code.replace(/-/g, ''));
  });

  it('refuses what can be no code: too short, too long, outside the alphabet', () => {
    expect(normaliseRedemptionCode('ABCD-EFGH')).toBeNull();
    expect(normaliseRedemptionCode('A'.repeat(21))).toBeNull();
    expect(normaliseRedemptionCode('UUUU-UUUU-UUUU-UUUU-UUUU')).toBeNull();
    expect(normaliseRedemptionCode('')).toBeNull();
  });

  it('hashes the normalised form: one hash whatever the typing', () => {
    const a = normaliseRedemptionCode('abcd-efgh-jkmn-pqrs-tvwx')!;
    const b = normaliseRedemptionCode('ABCDEFGHJKMNPQRSTVWX')!;
    expect(hashRedemptionCode(a)).toBe(hashRedemptionCode(b));
    expect(hashRedemptionCode(a)).toMatch(/^[0-9a-f]{64}$/);
  });
});
