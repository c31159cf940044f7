import { generateRecoveryCodes, normalizeRecoveryCode } from './recovery-codes';

describe('recovery codes', () => {
  it('are 10 distinct xxxx-xxxx-xxxx codes without look-alike letters', () => {
    const codes = generateRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){2}$/);
  });

  it('normalise what people type: case, spaces, dashes, o/i/l read as digits', () => {
    expect(normalizeRecoveryCode(' 7K3M-Q9X2 H4TD ')).toBe('7k3mq9x2h4td');
    expect(normalizeRecoveryCode('OIL0-aaaa-bbbb')).toBe('0110aaaabbbb');
    expect(normalizeRecoveryCode('7k3m-q9x2')).toBeNull();
    expect(normalizeRecoveryCode('7k3m-q9x2-h4tu')).toBeNull();
  });
});
