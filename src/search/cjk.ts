/**
 * CJK text has no spaces between words, so the search splits runs of these characters into
 * overlapping bigrams (我们的数据库 → 我们 们的 的数 数据 据库). The same ranges are used by the SQL
 * functions of migration Search (escaped for PostgreSQL's regular expressions) and by the snippet
 * code, so document and query are cut alike.
 */
const RANGES: [number, number][] = [
  [0x3040, 0x30ff], // Hiragana, Katakana
  [0x3400, 0x4dbf], // CJK Extension A
  [0x4e00, 0x9fff], // CJK Unified Ideographs
  [0xac00, 0xd7af], // Hangul syllables
  [0xf900, 0xfaff], // CJK Compatibility Ideographs
];

const hex = (n: number) => n.toString(16).padStart(4, '0');

/** A regular-expression class of the ranges for PostgreSQL (`[\u3040-\u30ff…]`). */
export const CJK_CLASS_SQL = `[${RANGES.map(([a, b]) => `\\u${hex(a)}-\\u${hex(b)}`).join('')}]`;

/** The same class for JavaScript, global: runs of CJK characters. */
export const CJK_RUNS = new RegExp(
  `[${RANGES.map(([a, b]) => `\\u${hex(a)}-\\u${hex(b)}`).join('')}]+`,
  'gu',
);
