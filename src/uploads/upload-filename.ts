import { randomBytes } from 'node:crypto';

/**
 * Stored file names: `<millisecond timestamp>-<32 hex digits>-<sanitised name>` (the
 * spec's `<millisecond timestamp>-<original file name>` plus 128 random bits, so a name
 * cannot be guessed from the time and the client's file name). The original name is sanitised
 * first, so that a stored name is one safe path segment: usable as is in `/uploads/<filename>`
 * and on any filesystem, never a traversal. Names stored before the random part existed
 * and stay valid.
 */

/** Most UTF-8 bytes kept of a sanitised name (ext4 allows 255 for the whole stored name). */
export const MAX_NAME_BYTES = 120;
/** An extension longer than this (code points, dot included) is not kept apart on truncation. */
const MAX_EXT_CHARS = 16;
/** Longest stored name accepted on the download and delete routes (bytes). */
const MAX_STORED_BYTES = 255;
/** Random bytes in a stored name: 128 bits, as 32 lower-case hex digits. */
const RANDOM_BYTES = 16;
// Hex, not base64url: the sanitiser never changes it (base64url's `_` runs would collapse) and
// it cannot collide on a case-insensitive filesystem. 13 + 1 + 32 + 1 + 120 bytes ≤ 255.
const NEW_SHAPE = /^(\d{1,16})-([0-9a-f]{32})-(.+)$/su;
const OLD_SHAPE = /^(\d{1,16})-(.+)$/su;

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

/**
 * `<timestampMs>-<random>-<sanitised name>`: `timestampMs` is milliseconds since the epoch,
 * `random` 16 bytes (fresh from the CSPRNG unless given, for tests) written as 32 hex digits.
 * At most 13 + 1 + 32 + 1 + MAX_NAME_BYTES = 167 bytes.
 */
export function storedFileName(
  timestampMs: number,
  originalName: string,
  random: Buffer = randomBytes(RANDOM_BYTES),
): string {
  if (random.length !== RANDOM_BYTES) throw new Error(`random must be ${RANDOM_BYTES} bytes`);
  return `${timestampMs}-${random.toString('hex')}-${sanitizeFileName(originalName)}`;
}

/**
 * Whether `name` (as decoded from a URL) has exactly the shape `storedFileName` produces, or
 * the shape of names stored before the random part (`<timestampMs>-<sanitised name>`), so `..`,
 * `/`, `\`, `%`, NUL and the like are refused before any lookup (the routes answer 404).
 */
export function isStoredFileName(name: string): boolean {
  if (bytes(name) > MAX_STORED_BYTES) return false;
  // The name part is the last group; the old shape alone would refuse a new name whose
  // `<random>-<name>` is longer than MAX_NAME_BYTES.
  const valid = (m: RegExpExecArray | null) =>
    !!m && sanitizeFileName(m[m.length - 1]) === m[m.length - 1];
  return valid(NEW_SHAPE.exec(name)) || valid(OLD_SHAPE.exec(name));
}

/**
 * A name for display and Content-Disposition: the base name of the client's file without
 * control or invisible characters, at most 255 code points (not otherwise restricted).
 */
export function displayName(raw: string): string {
  const base = (raw.split(/[/\\]/).pop() ?? '').normalize('NFC').replace(INVISIBLE, '').trim();
  return [...base].slice(0, 255).join('') || 'file';
}
