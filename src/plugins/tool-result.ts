import type { ToolResult } from './tool.types';

/** Largest `content` handed back to the model, in UTF-8 bytes. */
export const MAX_TOOL_RESULT_BYTES = 32 * 1024;
/** Longest `summary` (the SSE `tool_result` line), in characters. */
export const MAX_SUMMARY_CHARS = 200;

/**
 * `text` whole when it fits in `maxBytes` UTF-8 bytes; otherwise its head, cut on a character
 * boundary, and the note `[truncated: <total> bytes, first <kept> shown]`, the whole at most
 * `maxBytes` bytes (the note counts, so the model never gets more than the limit).
 */
export function truncateUtf8(text: string, maxBytes = MAX_TOOL_RESULT_BYTES): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  // The note's own length depends on the kept count; reserve its widest form.
  const reserve = Buffer.byteLength(
    `\n[truncated: ${bytes.length} bytes, first ${maxBytes} shown]`,
  );
  let kept = Math.max(0, maxBytes - reserve);
  // Back off continuation bytes (10xxxxxx) so no character is split.
  while (kept > 0 && (bytes[kept] & 0xc0) === 0x80) kept--;
  const head = bytes.subarray(0, kept).toString('utf8');
  return `${head}\n[truncated: ${bytes.length} bytes, first ${kept} shown]`;
}

/** One line of at most `MAX_SUMMARY_CHARS` characters (whitespace collapsed, `…` when cut). */
export function summarize(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= MAX_SUMMARY_CHARS) return line;
  let head = line.slice(0, MAX_SUMMARY_CHARS - 1);
  // Never end on half of a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return `${head}…`;
}

/** A successful result: `content` truncated to 32 KB, `summary` defaulting to its first line. */
export function okResult(content: string, summary?: string): ToolResult {
  return { ok: true, content: truncateUtf8(content), summary: summarize(summary ?? content) };
}

/** A failed result: the message is what the model is told. */
export function failedResult(message: string): ToolResult {
  return { ok: false, content: truncateUtf8(message), summary: summarize(message) };
}

/**
 * An expected failure of a tool (bad arguments, division by zero, an unknown zone): its message
 * is told to the model. Any other error thrown by a tool is reported generically and logged.
 */
export class ToolFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolFailure';
  }
}
