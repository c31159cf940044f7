import { cost, estimate, holdAmount } from './pricing';
import {
  cacheSavings,
  type CreditPricing,
  kindPrices,
  ledgerCounts,
  tokenKinds,
} from './token-pricing';

const tokens = (markup: string | number = 1): CreditPricing => ({ mode: 'tokens', markup });

// Claude Sonnet 4.5's prices per 1K tokens: input, output, cache read (0.1×), cache write (1.25×).
const sonnet = {
  costPerToken: '0.000015',
  inputPrice: 0.003,
  outputPrice: 0.015,
  cachedInputPrice: 0.0003,
  cacheWritePrice: 0.00375,
};
// 12000 prompt tokens: 10000 read from the cache, 1500 written to it, 500 plain input;
// 800 completion tokens: 300 reasoning, 500 plain output.
const usage = {
  promptTokens: 12000,
  completionTokens: 800,
  cachedTokens: 10000,
  cacheWriteTokens: 1500,
  reasoningTokens: 300,
};

describe('prices per kind of token (CREDIT_PRICING=tokens)', () => {
  it('charges ceil(markup × Σ tokens × price per 1K), computed by hand', () => {
    // 500 × 0.003 + 10000 × 0.0003 + 1500 × 0.00375 + 500 × 0.015 + 300 × 0.015 (reasoning at
    // the output price) = 1.5 + 3 + 5.625 + 7.5 + 4.5 = 22.125 → 23 credits.
    expect(cost(usage, sonnet, tokens())).toBe(23);
    // The same at markup 1.5: 33.1875 → 34.
    expect(cost(usage, sonnet, tokens('1.5'))).toBe(34);
  });

  it('is exact in decimals and rounds up once, at the end', () => {
    // 3 × 0.1 in binary doubles is 0.30000000000000004; ten such kinds must still give 3, not 4.
    const model = { costPerToken: 1, inputPrice: 0.1, outputPrice: 0.1 };
    expect(cost({ promptTokens: 15, completionTokens: 15 }, model, tokens())).toBe(3);
    // Each kind alone would round 0.3 up to 1; summed first, 0.3 + 0.3 + 0.3 = 0.9 → 1.
    const m = { costPerToken: 1, inputPrice: 0.1, outputPrice: 0.1, cachedInputPrice: 0.1 };
    const u = { promptTokens: 6, completionTokens: 3, cachedTokens: 3 };
    expect(cost(u, m, tokens())).toBe(1);
  });

  it('gives a kind without a price the input (input kinds) or output price (output kinds)', () => {
    const plain = { costPerToken: '0.000015', inputPrice: 0.003, outputPrice: 0.015 };
    expect(kindPrices(plain).cached.toString()).toBe('0.003');
    expect(kindPrices(plain).cacheWrite.toString()).toBe('0.003');
    expect(kindPrices(plain).reasoning.toString()).toBe('0.015');
    // 11500 × 0.003 + 500 × 0.003 + 800 × 0.015 = 34.5 + 1.5 + 12 = 48.
    expect(cost(usage, plain, tokens())).toBe(48);
  });

  it('takes costPerToken × 1000 for a model without inputPrice or outputPrice', () => {
    const bare = { costPerToken: '0.000002' };
    // Every kind at 0.002 per 1K: (12000 + 800) × 0.002 = 25.6 → 26, what spec mode charges.
    expect(cost(usage, bare, tokens())).toBe(26);
    expect(cost(usage, bare)).toBe(26);
    // Only the missing side falls back: input 0.001, output 0.002.
    const half = { costPerToken: '0.000002', inputPrice: 0.001 };
    expect(cost({ promptTokens: 1000, completionTokens: 1000 }, half, tokens())).toBe(3);
  });

  it('cuts a reported part larger than its whole, and rejects bad counts', () => {
    expect(
      tokenKinds({ promptTokens: 10, completionTokens: 5, cachedTokens: 8, cacheWriteTokens: 8 }),
    ).toEqual({ input: 0, cached: 8, cacheWrite: 2, output: 5, reasoning: 0 });
    expect(tokenKinds({ promptTokens: 1, completionTokens: 2, reasoningTokens: 9 })).toEqual({
      input: 1,
      cached: 0,
      cacheWrite: 0,
      output: 0,
      reasoning: 2,
    });
    expect(() =>
      cost({ promptTokens: 1, completionTokens: 0, cachedTokens: -1 }, sonnet, tokens()),
    ).toThrow(RangeError);
    expect(() => cost({ promptTokens: 1.5, completionTokens: 0 }, sonnet, tokens())).toThrow(
      RangeError,
    );
  });

  it('holds the worst case: the prompt at the highest input-side price, maxTokens at the highest output-side one', () => {
    const messages = [{ role: 'user', content: 'x'.repeat(4000) }]; // 1000 tokens
    // 1000 × max(0.003, 0.0003, 0.00375) + 1000 × 0.015 = 3.75 + 15 = 18.75 → 19.
    expect(holdAmount(messages, sonnet, 1000, 0, tokens())).toBe(19);
    // A reasoning price above the output price is the output side's worst case.
    expect(holdAmount(messages, { ...sonnet, reasoningPrice: 0.03 }, 1000, 0, tokens())).toBe(34);
    // Extra prompt tokens (images) are priced as prompt: 2000 × 0.00375 + 15 = 22.5 → 23.
    expect(holdAmount(messages, sonnet, 1000, 1000, tokens())).toBe(23);
    // Markup 2: 37.5 → 38.
    expect(holdAmount(messages, sonnet, 1000, 0, tokens(2))).toBe(38);
    // Never below what any split of those tokens into kinds is charged.
    const worst = { promptTokens: 1000, completionTokens: 1000, cacheWriteTokens: 1000 };
    expect(cost(worst, sonnet, tokens())).toBeLessThanOrEqual(
      holdAmount(messages, sonnet, 1000, 0, tokens()),
    );
  });

  it('estimates the prompt at the input price, times the markup', () => {
    const messages = [{ role: 'user', content: 'x'.repeat(4000) }]; // 1000 tokens
    expect(estimate(messages, sonnet, 0, tokens())).toBe(3);
    expect(estimate(messages, sonnet, 0, tokens('2.5'))).toBe(8); // 7.5 → 8
  });

  it('leaves spec mode unchanged: every token at costPerToken', () => {
    // (12000 + 800) × 0.000015 × 1000 = 192, whatever the kinds.
    expect(cost(usage, sonnet)).toBe(192);
    expect(cost(usage, sonnet, { mode: 'spec', markup: 3 })).toBe(192);
    const messages = [{ role: 'user', content: 'x'.repeat(4000) }];
    expect(holdAmount(messages, sonnet, 1000)).toBe(30);
    expect(estimate(messages, sonnet)).toBe(15);
  });

  it('gives the same order of magnitude as spec mode for the default catalogue', () => {
    // gpt-4o-mini: costPerToken 0.0000006 is the output price 0.0006 per 1K.
    const mini = { costPerToken: '0.0000006', inputPrice: 0.00015, outputPrice: 0.0006 };
    const reply = { promptTokens: 0, completionTokens: 10000 };
    expect(cost(reply, mini, tokens())).toBe(cost(reply, mini)); // 6 = 6
    const prompt = { promptTokens: 10000, completionTokens: 0 };
    expect(cost(prompt, mini, tokens())).toBe(2); // 1.5 → 2, where spec charges 6
  });

  it('counts the credits the cache reads saved: 0 in spec mode', () => {
    // Without cache reads: 10500 × 0.003 + 1500 × 0.00375 + 12 = 31.5 + 5.625 + 12 = 49.125 → 50;
    // charged 23: saved 27.
    expect(cacheSavings(usage, sonnet, tokens())).toBe(27);
    expect(cacheSavings(usage, sonnet, { mode: 'spec', markup: 1 })).toBe(0);
    expect(ledgerCounts(usage, sonnet, tokens())).toEqual({
      promptTokens: 12000,
      completionTokens: 800,
      cachedTokens: 10000,
      cacheWriteTokens: 1500,
      reasoningTokens: 300,
      cacheSavings: 27,
    });
    expect(ledgerCounts({ promptTokens: 5, completionTokens: 1 }, sonnet, tokens())).toEqual({
      promptTokens: 5,
      completionTokens: 1,
      cachedTokens: null,
      cacheWriteTokens: null,
      reasoningTokens: null,
      cacheSavings: 0,
    });
  });
});
