import {
  normaliseAnthropicUsage,
  normaliseGeminiUsage,
  normaliseOpenAiUsage,
  usageFallback,
} from './usage';

const noChars = { promptChars: 0, completionChars: 0 };

describe('usageFallback', () => {
  it('counts code points of every message and of the reply', () => {
    expect(
      usageFallback(
        [
          { role: 'system', content: 'be nice' },
          { role: 'user', content: 'héllo 👋' },
        ],
        '👋👋',
      ),
    ).toEqual({ promptChars: 14, completionChars: 2 });
  });
});

describe('normaliseOpenAiUsage', () => {
  it('takes prompt_tokens and completion_tokens as they are', () => {
    expect(normaliseOpenAiUsage({ prompt_tokens: 12, completion_tokens: 34 }, noChars)).toEqual({
      promptTokens: 12,
      completionTokens: 34,
    });
  });

  it('reads the include_usage chunk of a stream (empty choices, usage with totals)', () => {
    const lastChunk = {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
    };
    expect(normaliseOpenAiUsage(lastChunk.usage, noChars)).toEqual({
      promptTokens: 1000,
      completionTokens: 500,
    });
  });

  it('estimates ceil(chars / 4) when a compatible server sends no usage', () => {
    expect(normaliseOpenAiUsage(undefined, { promptChars: 9, completionChars: 4 })).toEqual({
      promptTokens: 3,
      completionTokens: 1,
    });
    expect(normaliseOpenAiUsage(null, { promptChars: 0, completionChars: 0 })).toEqual({
      promptTokens: 0,
      completionTokens: 0,
    });
  });

  it('ignores negative or fractional counts', () => {
    expect(
      normaliseOpenAiUsage(
        { prompt_tokens: -1, completion_tokens: 2.5 },
        { promptChars: 8, completionChars: 8 },
      ),
    ).toEqual({ promptTokens: 2, completionTokens: 2 });
  });
});

describe('normaliseAnthropicUsage', () => {
  it('takes input_tokens and output_tokens of a whole message', () => {
    expect(
      normaliseAnthropicUsage({ input_tokens: 25, cache_read_input_tokens: null }, 40, noChars),
    ).toEqual({ promptTokens: 25, completionTokens: 40 });
  });

  it('uses the LAST cumulative message_delta output_tokens, not their sum', () => {
    // message_start reports output_tokens 1; each message_delta repeats the running total.
    const messageStart = { input_tokens: 30, output_tokens: 1 };
    const messageDeltas = [{ output_tokens: 5 }, { output_tokens: 12 }, { output_tokens: 20 }];
    let last: number | undefined;
    for (const delta of messageDeltas) last = delta.output_tokens;
    const usage = normaliseAnthropicUsage(messageStart, last, noChars);
    expect(usage).toEqual({ promptTokens: 30, completionTokens: 20 });
    expect(usage.completionTokens).not.toBe(1 + 5 + 12 + 20);
  });

  it('counts cache writes and reads as prompt tokens', () => {
    expect(
      normaliseAnthropicUsage(
        { input_tokens: 10, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000 },
        3,
        noChars,
      ),
    ).toEqual({
      promptTokens: 1110,
      completionTokens: 3,
      cachedTokens: 1000,
      cacheWriteTokens: 100,
    });
  });

  it('estimates what is missing', () => {
    expect(
      normaliseAnthropicUsage(undefined, undefined, { promptChars: 10, completionChars: 5 }),
    ).toEqual({ promptTokens: 3, completionTokens: 2 });
  });
});

describe('normaliseGeminiUsage', () => {
  it('adds thoughtsTokenCount to candidatesTokenCount', () => {
    // usageMetadata of the last streamed chunk of a thinking model.
    const usageMetadata = {
      promptTokenCount: 12,
      candidatesTokenCount: 30,
      thoughtsTokenCount: 100,
      totalTokenCount: 142,
    };
    expect(normaliseGeminiUsage(usageMetadata, noChars)).toEqual({
      promptTokens: 12,
      completionTokens: 130,
      reasoningTokens: 100,
    });
  });

  it('treats an omitted count as zero when the other is present', () => {
    expect(normaliseGeminiUsage({ promptTokenCount: 7, candidatesTokenCount: 9 }, noChars)).toEqual(
      { promptTokens: 7, completionTokens: 9 },
    );
    expect(normaliseGeminiUsage({ promptTokenCount: 7, thoughtsTokenCount: 4 }, noChars)).toEqual({
      promptTokens: 7,
      completionTokens: 4,
      reasoningTokens: 4,
    });
  });

  it('estimates when usageMetadata or its counts are missing', () => {
    const chars = { promptChars: 40, completionChars: 13 };
    expect(normaliseGeminiUsage(undefined, chars)).toEqual({
      promptTokens: 10,
      completionTokens: 4,
    });
    expect(normaliseGeminiUsage({ promptTokenCount: 3 }, chars)).toEqual({
      promptTokens: 3,
      completionTokens: 4,
    });
  });
});

// Reasoning models bill their reasoning tokens as completion tokens, exactly once.
describe('reasoning tokens, per provider', () => {
  it('OpenAI: reasoning_tokens are already inside completion_tokens, never added again', () => {
    const usage = {
      prompt_tokens: 100,
      completion_tokens: 700,
      completion_tokens_details: { reasoning_tokens: 640 },
    };
    expect(normaliseOpenAiUsage(usage, noChars)).toEqual({
      promptTokens: 100,
      completionTokens: 700,
      reasoningTokens: 640,
    });
  });

  it('Anthropic: output_tokens already include the thinking tokens', () => {
    expect(normaliseAnthropicUsage({ input_tokens: 50 }, 1500, noChars, 1200)).toEqual({
      promptTokens: 50,
      completionTokens: 1500,
      reasoningTokens: 1200,
    });
    expect(normaliseAnthropicUsage({ input_tokens: 50 }, 30, noChars, null)).toEqual({
      promptTokens: 50,
      completionTokens: 30,
    });
  });

  it('Gemini: thoughtsTokenCount is added to candidatesTokenCount (it is not inside it)', () => {
    const usage = { promptTokenCount: 8, candidatesTokenCount: 40, thoughtsTokenCount: 900 };
    expect(normaliseGeminiUsage(usage, noChars)).toEqual({
      promptTokens: 8,
      completionTokens: 940,
      reasoningTokens: 900,
    });
  });
});

describe('cached tokens, per provider (already inside promptTokens, reported when some)', () => {
  it('OpenAI: prompt_tokens_details.cached_tokens', () => {
    const usage = {
      prompt_tokens: 100,
      completion_tokens: 5,
      prompt_tokens_details: { cached_tokens: 64 },
    };
    expect(normaliseOpenAiUsage(usage, noChars)).toEqual({
      promptTokens: 100,
      completionTokens: 5,
      cachedTokens: 64,
    });
    const none = { ...usage, prompt_tokens_details: { cached_tokens: 0 } };
    expect(normaliseOpenAiUsage(none, noChars)).toEqual({ promptTokens: 100, completionTokens: 5 });
  });

  it('Anthropic: cache_read_input_tokens', () => {
    const input = { input_tokens: 10, cache_read_input_tokens: 90 };
    expect(normaliseAnthropicUsage(input, 5, noChars)).toEqual({
      promptTokens: 100,
      completionTokens: 5,
      cachedTokens: 90,
    });
  });

  it('Gemini: cachedContentTokenCount', () => {
    const usage = { promptTokenCount: 100, candidatesTokenCount: 5, cachedContentTokenCount: 32 };
    expect(normaliseGeminiUsage(usage, noChars)).toEqual({
      promptTokens: 100,
      completionTokens: 5,
      cachedTokens: 32,
    });
  });

  it('OpenAI: input_tokens_details.cached_tokens (the Responses shape) when the other is absent', () => {
    const usage = {
      prompt_tokens: 100,
      completion_tokens: 5,
      input_tokens_details: { cached_tokens: 48 },
    };
    expect(normaliseOpenAiUsage(usage, noChars)).toEqual({
      promptTokens: 100,
      completionTokens: 5,
      cachedTokens: 48,
    });
  });

  it('Anthropic: cache_creation_input_tokens are cache writes, beside the reads', () => {
    const input = {
      input_tokens: 10,
      cache_creation_input_tokens: 40,
      cache_read_input_tokens: 50,
    };
    expect(normaliseAnthropicUsage(input, 5, noChars)).toEqual({
      promptTokens: 100,
      completionTokens: 5,
      cachedTokens: 50,
      cacheWriteTokens: 40,
    });
    const none = { input_tokens: 10, cache_creation_input_tokens: 0 };
    expect(normaliseAnthropicUsage(none, 5, noChars)).toEqual({
      promptTokens: 10,
      completionTokens: 5,
    });
  });

  it('every provider: reasoning and cache reads together, each a part of its total', () => {
    expect(
      normaliseOpenAiUsage(
        {
          prompt_tokens: 2000,
          completion_tokens: 300,
          prompt_tokens_details: { cached_tokens: 1536 },
          completion_tokens_details: { reasoning_tokens: 200 },
        },
        noChars,
      ),
    ).toEqual({
      promptTokens: 2000,
      completionTokens: 300,
      cachedTokens: 1536,
      reasoningTokens: 200,
    });
    expect(
      normaliseGeminiUsage(
        {
          promptTokenCount: 2000,
          candidatesTokenCount: 100,
          thoughtsTokenCount: 200,
          cachedContentTokenCount: 1024,
        },
        noChars,
      ),
    ).toEqual({
      promptTokens: 2000,
      completionTokens: 300,
      cachedTokens: 1024,
      reasoningTokens: 200,
    });
  });
});
