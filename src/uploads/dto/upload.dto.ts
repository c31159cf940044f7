import { ApiProperty } from '@nestjs/swagger';
import type { Upload } from '../upload.entity';
import type { SignedLink } from '../upload-links';

const EXAMPLE_NAME = '1747700000000-3f9c0a6e1b7d4c2a8e5f0b9d6a1c7e42-cat.png';

/**
 * Spec POST /api/upload `data`: where the file is served and its stored name. `url` is a
 * signed link, so it works without a session, until `expiresAt`.
 */
export class UploadDto {
  @ApiProperty({
    format: 'uuid',
    description: 'send as `uploadId` in an image part of an AI message',
  })
  id: string;
  @ApiProperty({
    example: `/uploads/${EXAMPLE_NAME}?exp=1747703600&sig=Vq3l0cY2x8d3kq9GmX1tQy7uJmQy2Lr0b1oVZ3c4e5A`,
    description:
      'Signed download link, valid without a session until `expiresAt` ' +
      '(UPLOAD_URL_TTL_SECONDS); the owner can always download `/uploads/<filename>` with a session',
  })
  url: string;
  @ApiProperty({ example: EXAMPLE_NAME }) filename: string;
  @ApiProperty({ format: 'date-time', description: 'When `url` stops working' })
  expiresAt: string;
}

/** Multipart body of POST /api/upload (for the OpenAPI page). */
export class UploadBodyDto {
  @ApiProperty({ type: 'string', format: 'binary' }) file: unknown;
}

/** The upload answer: `url` is the signed `link` of the upload (UploadLinks.link). */
export function mapUpload(u: Upload, link: SignedLink): UploadDto {
  return { id: u.id, url: link.url, filename: u.filename, expiresAt: link.expiresAt.toISOString() };
}

/**
 * `Content-Disposition` for a download: `inline` for images, `attachment` for anything else (so
 * an uploaded HTML page never renders in our origin), with the client's name as an ASCII
 * fallback and RFC 5987 `filename*`.
 */
export function contentDisposition(u: Upload): string {
  const kind = u.contentType.startsWith('image/') ? 'inline' : 'attachment';
  const fallback = u.originalName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(u.originalName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * Headers of a download (GET /uploads/{filename}): the recorded, sniffed type (text is UTF-8,
 * checked at upload) with `nosniff`, the disposition above, a CSP that runs nothing even if a
 * browser renders the file, and a short private cache: the answer depends on the caller's
 * session, so no shared cache may keep it (a browser may keep a deleted file up to 5 minutes).
 * No Referer leaves a rendered file (a signed link must not travel). Cross-origin embedding
 * is allowed, so a signed link works in an `<img>` of another origin.
 */
export function downloadHeaders(u: Upload): Record<string, string> {
  return {
    'Content-Type': u.contentType === 'text/plain' ? 'text/plain; charset=utf-8' : u.contentType,
    'Content-Disposition': contentDisposition(u),
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'Cache-Control': 'private, max-age=300',
    'Referrer-Policy': 'no-referrer',
  };
}
