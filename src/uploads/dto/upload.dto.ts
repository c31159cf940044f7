import { ApiProperty } from '@nestjs/swagger';
import type { Upload } from '../upload.entity';

/** Spec POST /api/upload `data`: where the file is served and its stored name. */
export class UploadDto {
  @ApiProperty({
    format: 'uuid',
    description: 'send as `uploadId` in an image part of an AI message (issue 18)',
  })
  id: string;
  @ApiProperty({ example: '/uploads/1747700000000-cat.png' }) url: string;
  @ApiProperty({ example: '1747700000000-cat.png' }) filename: string;
}

/** Multipart body of POST /api/upload (for the OpenAPI page). */
export class UploadBodyDto {
  @ApiProperty({ type: 'string', format: 'binary' }) file: unknown;
}

/** `url` is `/uploads/<filename>` (spec); a stored name needs no escaping in a path. */
export function mapUpload(u: Upload): UploadDto {
  return { id: u.id, url: `/uploads/${u.filename}`, filename: u.filename };
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
 * browser renders the file, and a short public cache (a deleted file may be served by caches
 * for up to 5 minutes). Cross-origin embedding is allowed: the URL is public anyway.
 */
export function downloadHeaders(u: Upload): Record<string, string> {
  return {
    'Content-Type': u.contentType === 'text/plain' ? 'text/plain; charset=utf-8' : u.contentType,
    'Content-Disposition': contentDisposition(u),
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'Cache-Control': 'public, max-age=300',
  };
}
