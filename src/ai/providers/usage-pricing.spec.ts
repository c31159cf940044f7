import Decimal from 'decimal.js';
import { type KindPrices, PRICE_KINDS, priceOf, usageKinds } from '../../prices/price-kinds';
import { chargeCredits, type TokensTariff } from '../../prices/tariff';
import type { TokenUsage } from '../../models/call.types';
import { normaliseAnthropicUsage, normaliseGeminiUsage, normaliseOpenAiUsage } from './usage';

/**
 * Each provider's usage, in today's and the older wire formats, normalised and charged: the
 * credits equal ceil(Σ kind × price per million / 1000), worked out by hand in each comment, and
 * no kind is ever negative.
 */

const none = { promptChars: 0, completionChars: 0 };
const tariff = (modelId: string, prices: KindPrices): TokensTariff => ({
  mode: 'tokens',
  modelId,
  version: 'test',
  markup: '1',
  prices,
});

/** Σ kind × price, the formula restated independently of tariff.ts. */
function byKinds(usage: TokenUsage, prices: KindPrices): number {
  const kinds = usageKinds(usage);
  for (const n of Object.values(kinds)) expect(n).toBeGreaterThanOrEqual(0);
  return PRICE_KINDS.reduce(
    (sum, k) => sum.plus(new Decimal(kinds[k]).times(priceOf(prices, k))),
    new Decimal(0),
  )
    .div(1000)
    .ceil()
    .toNumber();
}

function expectCharge(usage: TokenUsage, t: TokensTariff, credits: number) {
  expect(chargeCredits(usage, t)).toBe(credits);
  expect(byKinds(usage, t.prices)).toBe(credits);
}

describe('Anthropic: input_tokens excludes cache reads and writes', () => {
  // claude-sonnet-4-5, USD per million: input 3, cache read 0.3, 5-minute write 3.75 (1.25×),
  // 1-hour write 6 (2×), output 15; a reasoning price of 20 only to show the split.
  const sonnet = tariff('claude-sonnet-4-5', {
    input: '3',
    cachedInput: '0.3',
    cacheWrite5m: '3.75',
    cacheWrite1h: '6',
    output: '15',
    reasoning: '20',
  });
  const anthropic = (input: object, output: number, thinking?: number) =>
    normaliseAnthropicUsage(input, output, none, thinking);

  it('plain: 1000 × 3 + 500 × 15 = 10500 → 10.5 → 11 credits', () => {
    const usage = anthropic({ input_tokens: 1000 }, 500);
    expect(usage).toEqual({ promptTokens: 1000, completionTokens: 500 });
    expectCharge(usage, sonnet, 11);
  });

  it('cached: 200 × 3 + 10000 × 0.3 + 100 × 15 = 5100 → 5.1 → 6 credits', () => {
    const usage = anthropic({ input_tokens: 200, cache_read_input_tokens: 10_000 }, 100);
    expect(usage).toMatchObject({ promptTokens: 10_200, cachedTokens: 10_000 });
    expectCharge(usage, sonnet, 6);
  });

  it('5-minute write: 100 × 3 + 4000 × 3.75 + 100 × 15 = 16800 → 17 credits', () => {
    const usage = anthropic(
      {
        input_tokens: 100,
        cache_creation_input_tokens: 4000,
        cache_creation: { ephemeral_5m_input_tokens: 4000, ephemeral_1h_input_tokens: 0 },
      },
      100,
    );
    expect(usage).toMatchObject({ promptTokens: 4100, cacheWriteTokens: 4000 });
    expect(usage.cacheWrite1hTokens).toBeUndefined();
    expectCharge(usage, sonnet, 17);
  });

  it('1-hour write at 2× input: 100 × 3 + 4000 × 6 + 100 × 15 = 25800 → 26 credits (not 17)', () => {
    const usage = anthropic(
      {
        input_tokens: 100,
        cache_creation_input_tokens: 4000,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 4000 },
      },
      100,
    );
    expect(usage).toMatchObject({ cacheWriteTokens: 4000, cacheWrite1hTokens: 4000 });
    expectCharge(usage, sonnet, 26);
  });

  it('both lifetimes: 100 × 3 + 1000 × 3.75 + 3000 × 6 + 100 × 15 = 23550 → 24 credits', () => {
    const usage = anthropic(
      {
        input_tokens: 100,
        cache_creation_input_tokens: 4000,
        cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 3000 },
      },
      100,
    );
    expectCharge(usage, sonnet, 24);
  });

  it('older format: the flat cache_creation_input_tokens are 5-minute writes (17 credits)', () => {
    const usage = anthropic({ input_tokens: 100, cache_creation_input_tokens: 4000 }, 100);
    expect(usage).toMatchObject({ promptTokens: 4100, cacheWriteTokens: 4000 });
    expectCharge(usage, sonnet, 17);
  });

  it('reasoning: 100 × 3 + 500 × 15 + 1500 × 20 = 37800 → 38 credits', () => {
    // output_tokens (2000) already includes the 1500 thinking tokens: never added again.
    const usage = anthropic({ input_tokens: 100 }, 2000, 1500);
    expect(usage).toEqual({ promptTokens: 100, completionTokens: 2000, reasoningTokens: 1500 });
    expectCharge(usage, sonnet, 38);
  });
});

describe('OpenAI: prompt_tokens includes cached_tokens', () => {
  // gpt-5-mini, USD per million: input 0.25, cached 0.025, output 2; reasoning 8 to show the split.
  const mini = tariff('gpt-5-mini', {
    input: '0.25',
    cachedInput: '0.025',
    output: '2',
    reasoning: '8',
  });

  it('plain: 10000 × 0.25 + 1000 × 2 = 4500 → 4.5 → 5 credits', () => {
    const usage = normaliseOpenAiUsage({ prompt_tokens: 10_000, completion_tokens: 1000 }, none);
    expectCharge(usage, mini, 5);
  });

  it('cached: 1808 × 0.25 + 8192 × 0.025 + 1000 × 2 = 2656.8 → 3 credits', () => {
    const usage = normaliseOpenAiUsage(
      {
        prompt_tokens: 10_000,
        completion_tokens: 1000,
        prompt_tokens_details: { cached_tokens: 8192 },
      },
      none,
    );
    expect(usage).toMatchObject({ promptTokens: 10_000, cachedTokens: 8192 });
    expectCharge(usage, mini, 3);
  });

  it('older format (no details) and the Responses shape name the same counts', () => {
    expect(normaliseOpenAiUsage({ prompt_tokens: 10, completion_tokens: 2 }, none)).toEqual({
      promptTokens: 10,
      completionTokens: 2,
    });
    expect(
      normaliseOpenAiUsage(
        { prompt_tokens: 10, completion_tokens: 2, input_tokens_details: { cached_tokens: 4 } },
        none,
      ),
    ).toMatchObject({ cachedTokens: 4 });
  });

  it('writes no cache: the 5-minute and 1-hour write kinds stay 0', () => {
    const usage = normaliseOpenAiUsage({ prompt_tokens: 100, completion_tokens: 0 }, none);
    expect(usage.cacheWriteTokens).toBeUndefined();
    expect(usageKinds(usage)).toMatchObject({ cacheWrite5m: 0, cacheWrite1h: 0, input: 100 });
  });

  it('reasoning: 1000 × 0.25 + 500 × 2 + 1000 × 8 = 9250 → 10 credits', () => {
    const usage = normaliseOpenAiUsage(
      {
        prompt_tokens: 1000,
        completion_tokens: 1500,
        completion_tokens_details: { reasoning_tokens: 1000 },
      },
      none,
    );
    expect(usage).toMatchObject({ completionTokens: 1500, reasoningTokens: 1000 });
    expectCharge(usage, mini, 10);
  });

  it('a cached count above prompt_tokens never makes input negative', () => {
    const usage = normaliseOpenAiUsage(
      { prompt_tokens: 100, completion_tokens: 0, prompt_tokens_details: { cached_tokens: 150 } },
      none,
    );
    expect(usageKinds(usage)).toMatchObject({ input: 0, cachedInput: 100 });
    expectCharge(usage, mini, 1); // 100 × 0.025 = 2.5 → 0.0025 → 1
  });
});

describe('Gemini: promptTokenCount includes cachedContentTokenCount; thoughts are added', () => {
  // gemini-2.5-flash, USD per million: input 0.3, cached 0.03, output 2.5.
  const flash = tariff('gemini-2.5-flash', { input: '0.3', cachedInput: '0.03', output: '2.5' });

  it('plain: 1000 × 0.3 + 200 × 2.5 = 800 → 0.8 → 1 credit', () => {
    const usage = normaliseGeminiUsage({ promptTokenCount: 1000, candidatesTokenCount: 200 }, none);
    expectCharge(usage, flash, 1);
  });

  it('cached: 4000 × 0.3 + 6000 × 0.03 + 200 × 2.5 = 1880 → 2 credits', () => {
    const usage = normaliseGeminiUsage(
      { promptTokenCount: 10_000, cachedContentTokenCount: 6000, candidatesTokenCount: 200 },
      none,
    );
    expect(usage).toMatchObject({ promptTokens: 10_000, cachedTokens: 6000 });
    expectCharge(usage, flash, 2);
  });

  it('writes no cache per call: the write kinds stay 0', () => {
    const usage = normaliseGeminiUsage({ promptTokenCount: 10, candidatesTokenCount: 1 }, none);
    expect(usageKinds(usage)).toMatchObject({ cacheWrite5m: 0, cacheWrite1h: 0 });
  });

  it('reasoning: 1000 × 0.3 + 200 × 2.5 + 800 × 2.5 = 2800 → 3 credits', () => {
    const usage = normaliseGeminiUsage(
      { promptTokenCount: 1000, candidatesTokenCount: 200, thoughtsTokenCount: 800 },
      none,
    );
    expect(usage).toMatchObject({ completionTokens: 1000, reasoningTokens: 800 });
    expectCharge(usage, flash, 3);
  });

  it('audio input by modality: 600 × 0.3 + 400 × 1 + 0 = 580 → 1 credit', () => {
    const usage = normaliseGeminiUsage(
      {
        promptTokenCount: 1000,
        candidatesTokenCount: 0,
        promptTokensDetails: [
          { modality: 'TEXT', tokenCount: 600 },
          { modality: 'AUDIO', tokenCount: 400 },
        ],
      },
      none,
    );
    expect(usage).toMatchObject({ audioTokens: 400 });
    expectCharge(usage, { ...flash, prices: { ...flash.prices, audioInput: '1' } }, 1);
  });
});
