/**
 * CJK text has no spaces between words, so the search splits runs of these characters into
 * overlapping bigrams (我们的数据库 → 我们 们的 的数 数据 据库). The SQL functions of migration Search
 * cut stored messages and queries with the same ranges (frozen there); the snippet code finds
 * the query's bigrams in a message with this expression.
 */
const RANGES: [number, number][] = [
  [0x3040, 0x30ff], // Hiragana, Katakana
  [0x3400, 0x4dbf], // CJK Extension A
  [0x4e00, 0x9fff], // CJK Unified Ideographs
  [0xac00, 0xd7af], // Hangul syllables
  [0xf900, 0xfaff], // CJK Compatibility Ideographs
];

const hex = (n: number) => n.toString(16).padStart(4, '0');

/** Runs of CJK characters (global). */
export const CJK_RUNS = new RegExp(
  `[${RANGES.map(([a, b]) => `\\u${hex(a)}-\\u${hex(b)}`).join('')}]+`,
  'gu',
);
