import { codePoints } from '../common/text/code-points';
import { cost, dailyLimit, estimate, estimateTokens, holdAmount } from './pricing';

describe('pricing', () => {
  it('charges ceil((prompt + completion) * costPerToken * 1000)', () => {
    expect(cost({ promptTokens: 10, completionTokens: 20 }, { costPerToken: 0.00001 })).toBe(1);
    expect(cost({ promptTokens: 1000, completionTokens: 500 }, { costPerToken: 0.00003 })).toBe(45);
    expect(cost({ promptTokens: 1, completionTokens: 0 }, { costPerToken: 0.002 })).toBe(2);
  });

  it('does not charge one credit too many through binary floating point', () => {
    // In binary doubles 3 * 0.1 * 1000 = 300.00000000000006, which ceil() turns into 301.
    expect(Math.ceil(3 * 0.1 * 1000)).toBe(301);
    expect(cost({ promptTokens: 2, completionTokens: 1 }, { costPerToken: 0.1 })).toBe(300);
    expect(cost({ promptTokens: 7, completionTokens: 0 }, { costPerToken: '0.000001' })).toBe(1);
    expect(cost({ promptTokens: 1000, completionTokens: 0 }, { costPerToken: '0.000001' })).toBe(1);
  });

  it('rounds any fraction up and charges zero for zero tokens', () => {
    expect(cost({ promptTokens: 1001, completionTokens: 0 }, { costPerToken: '0.000001' })).toBe(2);
    expect(cost({ promptTokens: 0, completionTokens: 0 }, { costPerToken: 0.01 })).toBe(0);
  });

  it('rejects negative or fractional token counts', () => {
    expect(() => cost({ promptTokens: -1, completionTokens: 0 }, { costPerToken: 1 })).toThrow(
      RangeError,
    );
    expect(() => cost({ promptTokens: 1.5, completionTokens: 0 }, { costPerToken: 1 })).toThrow(
      RangeError,
    );
  });

  it('estimates tokens as ceil(characters / 4) and the cost from them', () => {
    const messages = [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi!' },
    ];
    expect(estimateTokens(messages)).toBe(2);
    expect(estimate(messages, { costPerToken: 0.002 })).toBe(4);
  });
});

describe('pricing: edge cases', () => {
  it('charges exactly 9 credits for 900 tokens at 0.00001 (floats give 10)', () => {
    expect(Math.ceil(900 * 0.00001 * 1000)).toBe(10);
    expect(cost({ promptTokens: 600, completionTokens: 300 }, { costPerToken: 0.00001 })).toBe(9);
  });

  it('counts Unicode code points, not UTF-16 units, in the estimate', () => {
    // Four emoji are 8 UTF-16 units but 4 code points: one token.
    expect(estimateTokens([{ role: 'user', content: '😀😀😀😀' }])).toBe(1);
    expect(estimateTokens([{ role: 'user', content: '你好世界你' }])).toBe(2);
  });

  it('holds the worst case: estimated prompt plus maxTokens', () => {
    const messages = [{ role: 'user', content: 'x'.repeat(400) }]; // 100 tokens
    expect(holdAmount(messages, { costPerToken: '0.00001' }, 1000)).toBe(11);
    expect(holdAmount(messages, { costPerToken: '0.0000006' }, 1000)).toBe(1);
  });

  it('maps plans to daily limits, unknown plans to 100', () => {
    expect([
      dailyLimit('FREE'),
      dailyLimit('BASIC'),
      dailyLimit('PRO'),
      dailyLimit('GOLD'),
    ]).toEqual([100, 1000, 10000, 100]);
  });

  it('counts code points exactly as Array.from does, lone surrogates included', () => {
    const samples = [
      '',
      'abc',
      '中文字',
      '😀',
      'a😀b😀',
      '\ud83d',
      '\ude00x',
      'x\ud83d',
      '😀\ud83d😀',
    ];
    for (const text of samples) expect(codePoints(text)).toBe(Array.from(text).length);
  });

  it('counts a long text without an array per character', () => {
    const text = 'ab😀'.repeat(2_000_000); // 8 M UTF-16 units, 6 M code points
    text.indexOf('z'); // flattens the repeated string before measuring
    const before = process.memoryUsage().heapUsed;
    expect(codePoints(text)).toBe(6_000_000);
    // Array.from would hold 6 M strings (hundreds of MB); the loop allocates nothing.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(16 * 1024 * 1024);
  });
});
