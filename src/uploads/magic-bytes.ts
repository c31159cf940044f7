import { extname } from 'node:path';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import type { UploadContentType } from './uploads.config';

/**
 * Content sniffing for uploads: the type of a file is decided by its first bytes, never by the
 * name or the multipart part's `Content-Type` (those only have to agree with it).
 */

/** Bytes read before deciding (enough for every signature and a meaningful text sample). */
export const SNIFF_BYTES = 4096;

interface Signature {
  type: Exclude<UploadContentType, 'text/plain'>;
  /** Byte offset → expected bytes. */
  parts: [number, number[]][];
}

const ascii = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));

const SIGNATURES: Signature[] = [
  { type: 'image/png', parts: [[0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]]] },
  { type: 'image/jpeg', parts: [[0, [0xff, 0xd8, 0xff]]] },
  { type: 'image/gif', parts: [[0, ascii('GIF87a')]] },
  { type: 'image/gif', parts: [[0, ascii('GIF89a')]] },
  {
    type: 'image/webp',
    parts: [
      [0, ascii('RIFF')],
      [8, ascii('WEBP')],
    ],
  },
  { type: 'application/pdf', parts: [[0, ascii('%PDF-')]] },
];

/** Extensions whose type we know; a file named so must have that type's bytes. */
const EXTENSION_TYPES: Record<string, UploadContentType> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.jpe': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
};

const matches = (head: Buffer, { parts }: Signature): boolean =>
  parts.every(([at, want]) => want.every((b, i) => head[at + i] === b));

/**
 * Whether `head` reads as plain text: valid UTF-8 without NUL bytes. `complete` is false when
 * `head` is only the start of the file, so a character cut at its end is not an error.
 */
function isPlainText(head: Buffer, complete: boolean): boolean {
  if (head.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: !complete });
    return true;
  } catch {
    return false;
  }
}

/**
 * The type of a file from its first bytes (up to SNIFF_BYTES; `complete` when that is the whole
 * file): one of the signatures, else `text/plain` for UTF-8 text, else null. An empty file is
 * text.
 */
export function detectContentType(head: Buffer, complete: boolean): UploadContentType | null {
  const hit = SIGNATURES.find((s) => matches(head, s));
  if (hit) return hit.type;
  return isPlainText(head, complete) ? 'text/plain' : null;
}

/** `image/JPG; x=y` → `image/jpeg`; empty → undefined. */
function normaliseMime(mime: string | undefined): string | undefined {
  const m = mime?.split(';')[0].trim().toLowerCase();
  if (!m) return undefined;
  return m === 'image/jpg' || m === 'image/pjpeg' ? 'image/jpeg' : m;
}

/**
 * Whether a claimed type agrees with the sniffed one. No claim or `application/octet-stream`
 * claims nothing; text may be claimed as any `text/*` or `application/json` (an `.html` or `.csv`
 * file is stored and served as plain text); anything else must be the same type.
 */
function agrees(claimed: string | undefined, detected: UploadContentType): boolean {
  if (!claimed || claimed === 'application/octet-stream' || claimed === detected) return true;
  return (
    detected === 'text/plain' && (claimed.startsWith('text/') || claimed === 'application/json')
  );
}

/**
 * Decides the content type of an upload from its first bytes. `declaredType` is the multipart
 * part's `Content-Type`, `fileName` the client's name (its extension is a claim too).
 * Returns the sniffed type. Throws AppError UNSUPPORTED_MEDIA_TYPE (415) when the bytes are no
 * known type, a type outside `allowed`, or not the type the part or the extension claims (a
 * `.png` whose bytes are not PNG).
 */
export function checkContentType(
  head: Buffer,
  complete: boolean,
  claim: { declaredType?: string; fileName: string },
  allowed: readonly UploadContentType[],
): UploadContentType {
  const detected = detectContentType(head, complete);
  const refuse = (why: string) =>
    new AppError(CommonErrorCode.UNSUPPORTED_MEDIA_TYPE, why, { allowedTypes: [...allowed] });
  if (!detected || !allowed.includes(detected))
    throw refuse(`File content is not an allowed type (${allowed.join(', ')})`);
  const byExtension = EXTENSION_TYPES[extname(claim.fileName).toLowerCase()];
  for (const claimed of [normaliseMime(claim.declaredType), byExtension]) {
    if (!agrees(claimed, detected))
      throw refuse(`File content is ${detected}, but the upload claims ${claimed}`);
  }
  return detected;
}
