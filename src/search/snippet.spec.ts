import { buildSnippet, queryTerms } from './snippet';

const mark = (s: string) => s.replace(/\[/g, '\u0002').replace(/\]/g, '\u0003');

describe('search snippets', () => {
  it('cuts CJK queries into bigrams and keeps other words', () => {
    expect(queryTerms('SQL 数据库 库')).toEqual({ cjk: ['数据', '据库', '库'], words: ['sql'] });
  });

  it("takes PostgreSQL's marks as highlights", () => {
    const s = buildSnippet('ignored', mark('the [runs] were [running] late'), 'running');
    expect(s.snippet).toBe('the runs were running late');
    expect(s.highlights).toEqual([
      [4, 8],
      [14, 21],
    ]);
  });

  it('finds a CJK match in the text and joins overlapping bigrams', () => {
    const text = '我们的数据库很慢';
    const s = buildSnippet(text, text, '数据库');
    expect(s.snippet).toBe(text);
    expect(s.highlights).toEqual([[3, 6]]);
    expect(s.snippet.slice(3, 6)).toBe('数据库');
  });

  it('cuts a window around a late match, offsets relative to the snippet', () => {
    const text = `${'x'.repeat(500)} 数据库 ${'y'.repeat(500)}`;
    const s = buildSnippet(text, null, '数据库');
    expect(s.snippet.length).toBe(200);
    const [[a, b]] = s.highlights;
    expect(s.snippet.slice(a, b)).toBe('数据库');
  });

  it('starts at the beginning without highlights when nothing matches literally', () => {
    const s = buildSnippet('An automobile is parked outside.', null, 'car');
    expect(s).toEqual({ snippet: 'An automobile is parked outside.', highlights: [] });
  });
});
