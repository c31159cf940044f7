import {
  formatMajor,
  isTwoDecimalCurrency,
  maxCreditsFor,
  proportionalShare,
  toMinorUnits,
} from './money';

describe('money', () => {
  it('multiplies major units by 100 exactly (spec Payments rule 1)', () => {
    expect(toMinorUnits(0.1)).toBe(10);
    expect(toMinorUnits(19.99)).toBe(1999);
    expect(toMinorUnits(1234.56)).toBe(123456);
    expect(toMinorUnits(0.29)).toBe(29); // 0.29 * 100 = 28.999999999999996 in binary
    expect(toMinorUnits(1)).toBe(100);
  });

  it('refuses more than two decimals, negatives and non-finite amounts', () => {
    expect(() => toMinorUnits(0.001)).toThrow(RangeError);
    expect(() => toMinorUnits(-1)).toThrow(RangeError);
    expect(() => toMinorUnits(Number.NaN)).toThrow(RangeError);
    expect(() => toMinorUnits(Infinity)).toThrow(RangeError);
  });

  it('formats minor units', () => {
    expect(formatMajor(1999)).toBe('19.99');
    expect(formatMajor(5)).toBe('0.05');
  });

  it('knows two-decimal currencies', () => {
    expect(isTwoDecimalCurrency('usd')).toBe(true);
    expect(isTwoDecimalCurrency('eur')).toBe(true);
    expect(isTwoDecimalCurrency('jpy')).toBe(false);
    expect(isTwoDecimalCurrency('kwd')).toBe(false);
    expect(isTwoDecimalCurrency('USD')).toBe(false);
  });

  it('bounds credits by amount × rate, exactly', () => {
    expect(maxCreditsFor(19.99, 100)).toBe(1999);
    expect(maxCreditsFor(0.29, 100)).toBe(29);
    expect(maxCreditsFor(0.01, 100)).toBe(1);
  });

  it('takes back a proportional share, rounded down, never above the grant', () => {
    expect(proportionalShare(1000, 500, 1000)).toBe(500);
    expect(proportionalShare(1000, 1000, 1000)).toBe(1000);
    expect(proportionalShare(999, 1, 3)).toBe(333);
    expect(proportionalShare(10, 1, 3)).toBe(3);
    expect(proportionalShare(10, 2000, 1000)).toBe(10);
    expect(proportionalShare(10, 0, 1000)).toBe(0);
  });
});
