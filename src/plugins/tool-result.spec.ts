import {
  failedResult,
  MAX_TOOL_RESULT_BYTES,
  okResult,
  summarize,
  truncateUtf8,
} from './tool-result';

describe('tool results', () => {
  it('keeps text within 32 KB whole', () => {
    const text = 'a'.repeat(MAX_TOOL_RESULT_BYTES);
    expect(truncateUtf8(text)).toBe(text);
  });

  it('truncates longer text to at most 32 KB with a note giving both sizes', () => {
    const out = truncateUtf8('x'.repeat(100_000));
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(MAX_TOOL_RESULT_BYTES);
    const note = /\n\[truncated: 100000 bytes, first (\d+) shown\]$/.exec(out);
    expect(note).not.toBeNull();
    expect(out.length - note![0].length).toBe(Number(note![1]));
    expect(Number(note![1])).toBeGreaterThan(MAX_TOOL_RESULT_BYTES - 100);
  });

  it('counts UTF-8 bytes and never splits a character', () => {
    const out = truncateUtf8('汉'.repeat(20_000)); // 3 bytes each: 60 000 bytes
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(MAX_TOOL_RESULT_BYTES);
    expect(out).toMatch(/^汉+\n\[truncated: 60000 bytes, first \d+ shown\]$/);
    expect(out).not.toContain('\uFFFD');
  });

  it('summaries are one line of at most 200 characters', () => {
    expect(summarize('a\n  b\tc')).toBe('a b c');
    const long = summarize('word '.repeat(100));
    expect(long.length).toBeLessThanOrEqual(200);
    expect(long.endsWith('…')).toBe(true);
  });

  it('builds ok and failed results', () => {
    expect(okResult('3', 'x = 3')).toEqual({ ok: true, content: '3', summary: 'x = 3' });
    expect(failedResult('boom')).toEqual({ ok: false, content: 'boom', summary: 'boom' });
  });
});
