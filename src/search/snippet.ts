import { CJK_RUNS } from './cjk';

/** A snippet with the ranges to highlight, as `[start, end)` offsets into it (UTF-16 units). */
export interface Snippet {
  snippet: string;
  highlights: [number, number][];
}

/** Characters of context before the first match when the snippet is cut from the text. */
const BEFORE = 60;
/** Longest snippet cut from the text, in characters. */
const LENGTH = 200;
const START = '\u0002';
const STOP = '\u0003';

/**
 * Builds a result's snippet. `headline` is the text with PostgreSQL's English matches (stems
 * included: "running" marks "runs") between U+0002 and U+0003, or null; the query's CJK bigrams
 * are found literally, and when nothing is marked at all (often for semantic results), the
 * query's words too. The snippet is the whole text when it is short, else LENGTH characters from
 * BEFORE characters ahead of the first match (the start of the text when nothing matched).
 */
export function buildSnippet(text: string, headline: string | null, query: string): Snippet {
  const terms = queryTerms(query);
  const marked = headline ? parseHeadline(headline) : { snippet: text, highlights: [] };
  const full = marked.snippet;
  let ranges = [...marked.highlights, ...find(full, terms.cjk)];
  if (ranges.length === 0) ranges = find(full, terms.words);
  ranges = merge(ranges);
  const start = full.length <= LENGTH || !ranges.length ? 0 : Math.max(0, ranges[0][0] - BEFORE);
  const snippet = full.slice(start, start + LENGTH);
  const highlights = ranges
    .map(([a, b]): [number, number] => [a - start, Math.min(b - start, snippet.length)])
    .filter(([a, b]) => a >= 0 && b > a);
  return { snippet, highlights };
}

/** The query's CJK bigrams (a one-character run stays itself) and its other words, lower-cased. */
export function queryTerms(query: string): { cjk: string[]; words: string[] } {
  const cjk: string[] = [];
  for (const run of query.match(CJK_RUNS) ?? []) {
    const chars = Array.from(run);
    if (chars.length === 1) cjk.push(run);
    for (let i = 0; i + 1 < chars.length; i++) cjk.push(chars[i] + chars[i + 1]);
  }
  const words = query
    .replace(CJK_RUNS, ' ')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 2);
  return { cjk, words };
}

/** Strips the markers of a ts_headline fragment, keeping where they were. */
function parseHeadline(headline: string): Snippet {
  let snippet = '';
  const highlights: [number, number][] = [];
  let open = -1;
  for (const ch of headline) {
    if (ch === START) open = snippet.length;
    else if (ch === STOP) {
      if (open >= 0 && snippet.length > open) highlights.push([open, snippet.length]);
      open = -1;
    } else snippet += ch;
  }
  return { snippet, highlights };
}

/** Every case-insensitive occurrence of any term in `text`, in order of position. */
function find(text: string, terms: string[]): [number, number][] {
  const lower = text.toLowerCase();
  const found: [number, number][] = [];
  for (const term of terms) {
    for (let i = lower.indexOf(term); i >= 0; i = lower.indexOf(term, i + 1)) {
      found.push([i, i + term.length]);
    }
  }
  return found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/** Sorted, with overlapping or touching ranges joined (数据 + 据库 → 数据库). */
function merge(ranges: [number, number][]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}
