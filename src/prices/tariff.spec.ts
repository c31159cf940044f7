import { fullPrices, usageKinds } from './price-kinds';
import {
  cacheSavings,
  chargeCredits,
  estimateCredits,
  exactCredits,
  type Tariff,
  worstCaseCredits,
} from './tariff';

const sonnet: Tariff = {
  mode: 'tokens',
  modelId: 'claude-sonnet-4-5',
  version: 'v1',
  markup: '1',
  prices: { input: '3', output: '15', cachedInput: '0.3', cacheWrite5m: '3.75', cacheWrite1h: '6' },
};

describe('usageKinds', () => {
  it('splits prompt and completion into kinds that add up to them', () => {
    const kinds = usageKinds({
      promptTokens: 10_000,
      completionTokens: 1500,
      cachedTokens: 6000,
      cacheWriteTokens: 3000,
      cacheWrite1hTokens: 1000,
      audioTokens: 200,
      reasoningTokens: 1000,
    });
    expect(kinds).toEqual({
      input: 800,
      cachedInput: 6000,
      cacheWrite5m: 2000,
      cacheWrite1h: 1000,
      imageInput: 0,
      audioInput: 200,
      output: 500,
      reasoning: 1000,
    });
  });

  it('never goes negative: a part larger than its whole is cut to what is left', () => {
    const kinds = usageKinds({
      promptTokens: 100,
      completionTokens: 10,
      cachedTokens: 150,
      cacheWriteTokens: 50,
      cacheWrite1hTokens: 80,
      reasoningTokens: 40,
    });
    expect(kinds).toMatchObject({ input: 0, cachedInput: 100, cacheWrite5m: 0, cacheWrite1h: 0 });
    expect(kinds).toMatchObject({ output: 0, reasoning: 10 });
    for (const n of Object.values(kinds)) expect(n).toBeGreaterThanOrEqual(0);
  });

  it('refuses a negative or fractional count', () => {
    expect(() => usageKinds({ promptTokens: -1, completionTokens: 0 })).toThrow(RangeError);
    expect(() => usageKinds({ promptTokens: 1, completionTokens: 0.5 })).toThrow(RangeError);
  });
});

describe('fullPrices', () => {
  it('falls back: 1-hour writes to 5-minute writes, reasoning to output, the rest to input', () => {
    expect(fullPrices({ input: '1', output: '4', cacheWrite5m: '1.25' })).toEqual({
      input: '1',
      output: '4',
      cachedInput: '1',
      cacheWrite5m: '1.25',
      cacheWrite1h: '1.25',
      reasoning: '4',
      imageInput: '1',
      audioInput: '1',
    });
  });
});

describe('chargeCredits', () => {
  it('charges ceil(markup × Σ tokens × price per million / 1000)', () => {
    // 200 × 3 + 10000 × 0.3 + 1000 × 3.75 + 2000 × 6 + 100 × 15 = 600 + 3000 + 3750 + 12000 + 1500
    // = 20850 USD per million tokens → 20.85 credits → 21; at markup 1.2, 25.02 → 26.
    const usage = {
      promptTokens: 13_200,
      completionTokens: 100,
      cachedTokens: 10_000,
      cacheWriteTokens: 3000,
      cacheWrite1hTokens: 2000,
    };
    expect(exactCredits(usage, sonnet).toString()).toBe('20.85');
    expect(chargeCredits(usage, sonnet)).toBe(21);
    expect(chargeCredits(usage, { ...sonnet, markup: '1.2' })).toBe(26);
  });

  it('prices in spec mode every token at costPerToken × 1000', () => {
    const spec: Tariff = { mode: 'spec', modelId: 'm', costPerToken: '0.000002' };
    expect(
      chargeCredits({ promptTokens: 1000, completionTokens: 501, cachedTokens: 900 }, spec),
    ).toBe(4);
    expect(cacheSavings({ promptTokens: 1000, completionTokens: 0, cachedTokens: 900 }, spec)).toBe(
      0,
    );
  });

  it('holds the worst case: the prompt at the dearest input kind, the output at the dearest output kind', () => {
    // 1000 × 6 (1-hour writes) + 100 × 15 = 7500 → 7.5 → 8: no split of the same counts costs more.
    expect(worstCaseCredits(1000, 100, sonnet)).toBe(8);
    const dearest = chargeCredits(
      {
        promptTokens: 1000,
        completionTokens: 100,
        cacheWriteTokens: 1000,
        cacheWrite1hTokens: 1000,
      },
      sonnet,
    );
    expect(dearest).toBeLessThanOrEqual(worstCaseCredits(1000, 100, sonnet));
    expect(estimateCredits(1000, sonnet)).toBe(3);
  });

  it('counts what the cache reads saved', () => {
    // Full: 10000 × 3 = 30 credits; charged: 10000 × 0.3 = 3 credits; saved 27.
    expect(
      cacheSavings({ promptTokens: 10_000, completionTokens: 0, cachedTokens: 10_000 }, sonnet),
    ).toBe(27);
  });
});
