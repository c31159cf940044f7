import { normaliseOpenAiUsage } from './openai.usage';

describe('normaliseOpenAiUsage', () => {
  it('takes prompt_tokens and completion_tokens as they are', () => {
    expect(
      normaliseOpenAiUsage(
        { prompt_tokens: 12, completion_tokens: 34 },
        { promptChars: 0, completionChars: 0 },
      ),
    ).toEqual({ promptTokens: 12, completionTokens: 34 });
  });

  it('estimates ceil(chars / 4) when a compatible server sends no usage', () => {
    expect(normaliseOpenAiUsage(undefined, { promptChars: 9, completionChars: 4 })).toEqual({
      promptTokens: 3,
      completionTokens: 1,
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
