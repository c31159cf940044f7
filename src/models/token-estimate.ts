// Token estimates without a tokenizer: the hold's upper bound, and the spec's ceil(length / 4).

/**
 * Tokens of `text` as the hold counts them, an upper bound for the text of any tokenizer we
 * meet: `ceil(ASCII characters / 4) + one per non-ASCII code point` (a surrogate pair is one
 * code point). English runs about 4 characters a token; Chinese, Japanese and Korean about one
 * token a character, and other scripts between the two, so counting each non-ASCII character
 * as a token keeps the hold above what the provider reports. One pass over the UTF-16 units,
 * no allocation: it runs on every admission.
 */
export function textTokens(text: string): number {
  const { ascii, other } = countChars(text);
  return Math.ceil(ascii / 4) + other;
}

/**
 * Prompt tokens of `messages` for the hold, the `count_tokens` answer and a cut stream's
 * estimate: textTokens over the messages' contents together (the ASCII characters of all
 * messages are summed before the division, as one text).
 */
export function promptTextTokens(messages: readonly { content: string }[]): number {
  let ascii = 0;
  let other = 0;
  for (const m of messages) {
    const counted = countChars(m.content);
    ascii += counted.ascii;
    other += counted.other;
  }
  return Math.ceil(ascii / 4) + other;
}

/** ASCII characters (U+0000–U+007F) and other code points of `text`. */
function countChars(text: string): { ascii: number; other: number } {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) {
      ascii++;
      continue;
    }
    other++;
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return { ascii, other };
}
