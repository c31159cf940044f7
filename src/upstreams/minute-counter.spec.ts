import { MinuteCounter } from './minute-counter';

describe('MinuteCounter', () => {
  it('counts attempts per upstream within one clock minute, from zero in the next', () => {
    const c = new MinuteCounter();
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s));
    c.hit('a', at(1));
    c.hit('a', at(59));
    c.hit('b', at(30));
    expect(c.count('a', at(59))).toBe(2);
    expect(c.count('b', at(0))).toBe(1);
    expect(c.count('a', at(60))).toBe(0);
    c.hit('a', at(61));
    expect(c.count('a', at(62))).toBe(1);
  });
});
