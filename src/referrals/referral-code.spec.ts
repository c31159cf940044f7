import {
  generateReferralCode,
  maskName,
  normaliseReferralCode,
  REFERRAL_ALPHABET,
} from './referral-code';

describe('referral codes', () => {
  it('are 8 characters of the unambiguous alphabet', () => {
    for (let i = 0; i < 200; i++) {
      const code = generateReferralCode();
      expect(code).toMatch(/^[A-Z2-9]{8}$/);
      expect([...code].every((c) => REFERRAL_ALPHABET.includes(c))).toBe(true);
    }
    expect(REFERRAL_ALPHABET).not.toMatch(/[01OIL]/);
  });

  it('normalises what users type and refuses what cannot be a code', () => {
    expect(normaliseReferralCode(' abcd2345 ')).toBe('ABCD2345');
    expect(normaliseReferralCode('ABCD234')).toBeNull();
    expect(normaliseReferralCode('ABCD2340')).toBeNull(); // 0 is not in the alphabet
    expect(normaliseReferralCode(12345678)).toBeNull();
    expect(normaliseReferralCode(undefined)).toBeNull();
  });

  it('masks names to their first character', () => {
    expect(maskName('Ada Lovelace')).toBe('A***');
    expect(maskName('  李雷 ')).toBe('李***');
    expect(maskName(null)).toBeNull();
    expect(maskName('   ')).toBeNull();
  });
});
