import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { isUUID, ValidateBy, type ValidationOptions } from 'class-validator';

/** Images accepted in one request, across all its messages (issue 18 §1). */
export const MAX_IMAGES_PER_REQUEST = 4;
/** Parts of one message. */
export const MAX_PARTS_PER_MESSAGE = 20;

/** One part of a message: text, or an image by the id of an upload the caller may read. */
export class MessagePartDto {
  @ApiProperty({ enum: ['text', 'image'] }) type: 'text' | 'image';
  @ApiPropertyOptional({ description: '`text` parts: the text (non-empty)' }) text?: string;
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      '`image` parts: an upload of yours, or one attached to a chat you can read (else 404); PNG, JPEG, WebP or GIF',
  })
  uploadId?: string;
}

export type MessagePart = { type: 'text'; text: string } | { type: 'image'; uploadId: string };

/** A message's content: a non-empty string, or 1..20 parts. */
export type MessageContent = string | MessagePart[];

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
      if (typeof p.uploadId !== 'string' || !isUUID(p.uploadId))
        return `part ${i}: uploadId must be a UUID`;
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
 * A content's text (its text parts joined with a blank line) and its images' upload ids in
 * order. The text is what spec Limits 2 prices and what is saved as the message's content.
 */
export function splitContent(content: MessageContent): { text: string; uploadIds: string[] } {
  if (typeof content === 'string') return { text: content, uploadIds: [] };
  const texts: string[] = [];
  const uploadIds: string[] = [];
  for (const part of content) {
    if (part.type === 'text') texts.push(part.text);
    else uploadIds.push(part.uploadId);
  }
  return { text: texts.join('\n\n'), uploadIds };
}
