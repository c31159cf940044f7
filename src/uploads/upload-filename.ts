/**
 * Stored file names (spec "Upload": `<millisecond timestamp>-<original file name>`). The
 * original name is sanitised first, so that a stored name is one safe path segment: usable as
 * is in `/uploads/<filename>` and on any filesystem, never a traversal.
 */

/** Most UTF-8 bytes kept of a sanitised name (ext4 allows 255 for the whole stored name). */
export const MAX_NAME_BYTES = 120;
/** An extension longer than this (code points, dot included) is not kept apart on truncation. */
const MAX_EXT_CHARS = 16;
/** Longest stored name accepted on the download and delete routes (bytes). */
const MAX_STORED_BYTES = 255;

// Letters (any script, e.g. Chinese), combining marks, digits and a few URL-safe punctuation
// marks; anything else (spaces, `%`, `#`, `?`, quotes, brackets, ...) becomes `_`.
const DISALLOWED = /[^\p{L}\p{M}\p{N}._\-()~+@]+/gu;
// Control, invisible format (bidi overrides that disguise extensions) and separator characters.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * The safe form of a client's file name, e.g. `../../照片 (1).PNG` → `照片_(1).PNG`.
 * Keeps the base name only (after the last `/` or `\`), NFC-normalises, drops control and
 * invisible characters, replaces other unsafe runs with `_`, collapses `..` to `.`, strips
 * leading dots and underscores and trailing dots, and cuts the name to MAX_NAME_BYTES UTF-8
 * bytes keeping its extension. Never empty (`file` instead). Idempotent:
 * `sanitizeFileName(sanitizeFileName(x)) === sanitizeFileName(x)`.
 */
export function sanitizeFileName(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? '';
  let name = base
    .normalize('NFC')
    .replace(INVISIBLE, '')
    .replace(DISALLOWED, '_')
    .replace(/_{2,}/g, '_')
    .replace(/\.{2,}/g, '.');
  name = truncate(name);
  name = name.replace(/^[._]+/, '').replace(/\.+$/, '');
  return name || 'file';
}

/** Cuts `name` to MAX_NAME_BYTES, shortening the stem and keeping a short extension. */
function truncate(name: string): string {
  if (bytes(name) <= MAX_NAME_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && [...name.slice(dot)].length <= MAX_EXT_CHARS ? name.slice(dot) : '';
  const stem = [...name.slice(0, name.length - ext.length)];
  while (stem.length && bytes(stem.join('') + ext) > MAX_NAME_BYTES) stem.pop();
  const cut = stem.join('') + ext;
  // An extension alone longer than the limit: cut the whole name by code points.
  if (bytes(cut) <= MAX_NAME_BYTES) return cut;
  const chars = [...name];
  while (bytes(chars.join('')) > MAX_NAME_BYTES) chars.pop();
  return chars.join('');
}

/** `<timestampMs>-<sanitised name>`; `timestampMs` is milliseconds since the epoch. */
export function storedFileName(timestampMs: number, originalName: string): string {
  return `${timestampMs}-${sanitizeFileName(originalName)}`;
}

/**
 * Whether `name` (as decoded from a URL) has exactly the shape `storedFileName` produces, so
 * `..`, `/`, `\`, `%`, NUL and the like are refused before any lookup (the routes answer 404).
 */
export function isStoredFileName(name: string): boolean {
  const m = /^(\d{1,16})-(.+)$/su.exec(name);
  return !!m && bytes(name) <= MAX_STORED_BYTES && sanitizeFileName(m[2]) === m[2];
}

/**
 * A name for display and Content-Disposition: the base name of the client's file without
 * control or invisible characters, at most 255 code points (not otherwise restricted).
 */
export function displayName(raw: string): string {
  const base = (raw.split(/[/\\]/).pop() ?? '').normalize('NFC').replace(INVISIBLE, '').trim();
  return [...base].slice(0, 255).join('') || 'file';
}
