import { promptTextTokens, textTokens } from './token-estimate';

describe('textTokens: the hold’s upper bound', () => {
  it('counts ASCII at 4 characters a token, rounded up', () => {
    expect(textTokens('')).toBe(0);
    expect(textTokens('abcd')).toBe(1);
    expect(textTokens('abcde')).toBe(2);
  });

  it('counts each non-ASCII code point as a token, a surrogate pair once', () => {
    expect(textTokens('数据库')).toBe(3);
    expect(textTokens('héllo')).toBe(2); // "hllo" → 1, "é" → 1
    expect(textTokens('😀😀')).toBe(2);
    expect(textTokens('\ud800x')).toBe(2); // a lone high surrogate, then "x"
  });

  it('sums the messages’ ASCII before dividing', () => {
    expect(promptTextTokens([{ content: 'ab' }, { content: 'cd' }, { content: '好' }])).toBe(2);
  });
});
