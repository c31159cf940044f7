import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { isUUID, ValidateBy, type ValidationOptions } from 'class-validator';
import { AppError, CommonErrorCode } from '../../common/errors/app-error';
import type { MessageContent } from '../../models/call.types';

/** Images accepted in one request, across all its messages. */
export const MAX_IMAGES_PER_REQUEST = 4;
/** Parts of one message. */
export const MAX_PARTS_PER_MESSAGE = 20;

/** One part of a message: text, or an image by upload id or URL. */
export class MessagePartDto {
  @ApiProperty({ enum: ['text', 'image'] }) type: 'text' | 'image';
  @ApiPropertyOptional({ description: '`text` parts: the text (non-empty)' }) text?: string;
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      '`image` parts (this or `url`): an upload of yours, or one attached to a chat you can read (else 404); PNG, JPEG, WebP or GIF',
  })
  uploadId?: string;
  @ApiPropertyOptional({
    description:
      '`image` parts (this or `uploadId`): a `data:image/<png|jpeg|webp|gif>;base64,` URL (sent, not saved), or the URL of an upload of ours (`/uploads/<filename>`); other hosts are refused, never fetched',
  })
  url?: string;
}

/** Where an image comes from: an upload (by id or by stored name), or inline bytes. */
export type ImageSource =
  { uploadId: string } | { filename: string } | { mediaType: string; data: string };

const DATA_URL = /^data:(image\/(?:png|jpeg|webp|gif));base64,([A-Za-z0-9+/]+={0,2})$/;
const UPLOAD_PATH = /^\/uploads\/([^/?#]+)(?:\?.*)?$/;

/** OpenAPI schema of a message's `content`. */
export const MESSAGE_CONTENT_SCHEMA = {
  oneOf: [
    { type: 'string', minLength: 1 },
    {
      type: 'array',
      minItems: 1,
      maxItems: MAX_PARTS_PER_MESSAGE,
      items: { $ref: getSchemaPath(MessagePartDto) },
    },
  ],
};

/** Why `value` is not a valid content, or null when it is. */
function contentProblem(value: unknown): string | null {
  if (typeof value === 'string') return value.length ? null : 'must not be empty';
  if (!Array.isArray(value)) return 'must be a string or an array of parts';
  if (!value.length || value.length > MAX_PARTS_PER_MESSAGE)
    return `must have 1 to ${MAX_PARTS_PER_MESSAGE} parts`;
  for (const [i, part] of value.entries()) {
    const p = part as Record<string, unknown> | null;
    if (p?.type === 'text') {
      if (typeof p.text !== 'string' || !p.text)
        return `part ${i}: text must be a non-empty string`;
    } else if (p?.type === 'image') {
      if ((p.uploadId === undefined) === (p.url === undefined))
        return `part ${i}: an image needs uploadId or url (one of them)`;
      if (p.uploadId !== undefined && (typeof p.uploadId !== 'string' || !isUUID(p.uploadId)))
        return `part ${i}: uploadId must be a UUID`;
      if (p.url !== undefined && typeof p.url !== 'string')
        return `part ${i}: url must be a string`;
    } else return `part ${i}: type must be "text" or "image"`;
  }
  return null;
}

/** Validates a message's `content` (see MessageContent). */
export function IsMessageContent(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isMessageContent',
      validator: {
        validate: (value) => contentProblem(value) === null,
        defaultMessage: (args) => `${args?.property} ${contentProblem(args?.value)}`,
      },
    },
    options,
  );
}

/**
 * A content's text (its text parts joined with a blank line) and its images in order. The text
 * is what spec Limits 2 prices and what is saved as the message's content. `ownOrigin` is this
 * service's origin (APP_BASE_URL): absolute upload URLs must be on it. Throws
 * VALIDATION_FAILED (400) for a URL that is neither a data URL of an image nor one of our uploads.
 */
export function splitContent(
  content: MessageContent,
  ownOrigin: string,
): { text: string; images: ImageSource[] } {
  if (typeof content === 'string') return { text: content, images: [] };
  const texts: string[] = [];
  const images: ImageSource[] = [];
  for (const part of content) {
    if (part.type === 'text') texts.push(part.text);
    else if ('uploadId' in part) images.push({ uploadId: part.uploadId });
    else images.push(imageOfUrl(part.url, ownOrigin));
  }
  return { text: texts.join('\n\n'), images };
}

/** An image URL as an ImageSource; see splitContent. */
export function imageOfUrl(url: string, ownOrigin: string): ImageSource {
  const data = DATA_URL.exec(url);
  if (data) return { mediaType: data[1], data: data[2] };
  let path = url;
  if (/^https?:\/\//i.test(url)) {
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    path = parsed && parsed.origin === ownOrigin ? parsed.pathname + parsed.search : '';
  }
  const upload = UPLOAD_PATH.exec(path);
  if (upload) {
    try {
      return { filename: decodeURIComponent(upload[1]) };
    } catch {
      // a malformed escape: refused below
    }
  }
  throw new AppError(
    CommonErrorCode.VALIDATION_FAILED,
    'An image url must be a base64 data URL of a PNG, JPEG, WebP or GIF, or the URL of an upload of ours; remote images are not fetched',
  );
}
