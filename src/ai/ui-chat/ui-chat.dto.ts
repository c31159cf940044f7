import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { ValidationFailedError } from '../../common/validation/validation.pipe';
import { GenerateDto, type GenerateMessageDto, INPUT_ROLES } from '../dto/generate.dto';
import type { MessagePart } from '../../models/call.types';

/**
 * One `UIMessage` of the AI SDK (`{id, role, parts, metadata?}`). Parts are kept as sent, since
 * clients add fields of their own (`state`, `providerMetadata`); only `text` parts are read.
 */
export class UiMessageDto {
  @ApiProperty({ example: 'msg_1' }) @IsString() @MaxLength(200) id: string;
  @ApiProperty({ enum: INPUT_ROLES }) @IsIn(INPUT_ROLES) role: (typeof INPUT_ROLES)[number];

  @ApiProperty({
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: true,
      required: ['type'],
      properties: { type: { type: 'string', example: 'text' }, text: { type: 'string' } },
    },
    example: [{ type: 'text', text: 'Hello!' }],
    description:
      "`text` parts are the content; a user's `file` parts with an image `mediaType` are images (`url`: a data URL or one of our uploads); `step-start` and `reasoning` parts are ignored",
  })
  @IsArray()
  @ArrayMaxSize(100)
  @IsObject({ each: true })
  parts: Record<string, unknown>[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

/**
 * POST /api/ai/chat body: the AI SDK chat transport's request (`{id, messages, trigger,
 * messageId}`) plus our fields, sent with the transport's `body` option: the model parameters
 * of /api/ai/generate (`modelId`, `temperature`, `topP`, `maxTokens`, `systemPrompt`,
 * `presencePenalty`, `frequencyPenalty`, `stop`), each optional as there.
 */
export class UiChatDto extends OmitType(GenerateDto, ['messages', 'chatId'] as const) {
  @ApiProperty({
    format: 'uuid',
    description:
      'our chat id: a chat of yours (or shared with you) is continued, a new id starts one',
  })
  @IsUUID()
  id: string;

  @ApiProperty({ type: [UiMessageDto], minItems: 1, maxItems: 200 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => UiMessageDto)
  messages: UiMessageDto[];

  @ApiPropertyOptional({ enum: ['submit-message'], default: 'submit-message' })
  @IsOptional()
  @IsIn(['submit-message'], {
    message: 'trigger must be submit-message (regenerate is not supported)',
  })
  trigger?: 'submit-message';

  @ApiPropertyOptional({ description: 'sent by the transport; not used' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  messageId?: string;
}

/** Part types that carry no content for the model. */
const SKIPPED_PARTS = new Set(['step-start', 'reasoning']);

/**
 * The UI messages as GenerateDto messages: each message's `text` parts joined, in order, and a
 * user's image `file` parts (`url`: a data URL or one of our uploads) as image parts.
 * Throws ValidationFailedError (400 VALIDATION_FAILED) for a part we cannot send (other files,
 * tools) or a conversation that does not end with a user's text.
 */
export function toChatMessages(messages: UiMessageDto[]): GenerateMessageDto[] {
  const out: GenerateMessageDto[] = [];
  for (const message of messages) {
    let content = '';
    const images: MessagePart[] = [];
    for (const part of message.parts) {
      if (part.type === 'text' && typeof part.text === 'string') content += part.text;
      else if (isImageFile(part) && message.role === 'user')
        images.push({ type: 'image', url: part.url });
      else if (!SKIPPED_PARTS.has(String(part.type)) && message.role === 'user')
        throw invalid(
          'unsupportedMessagePart',
          `message part type "${String(part.type)}" is not supported`,
        );
    }
    if (images.length)
      out.push({
        role: message.role,
        content: [...(content ? [{ type: 'text' as const, text: content }] : []), ...images],
      });
    else if (content) out.push({ role: message.role, content });
  }
  if (out.at(-1)?.role !== 'user')
    throw invalid('lastMessageUserText', 'the last message must be a user message with text');
  return out;
}

/** An AI SDK `file` part holding an image (`mediaType` image/*) with a string `url`. */
function isImageFile(part: Record<string, unknown>): part is { type: 'file'; url: string } {
  return (
    part.type === 'file' &&
    typeof part.url === 'string' &&
    typeof part.mediaType === 'string' &&
    part.mediaType.startsWith('image/')
  );
}

/** A violation of `messages`, translated from `validation.<constraint>` like the pipe's own. */
function invalid(constraint: string, message: string): ValidationFailedError {
  return new ValidationFailedError([
    { property: 'messages', constraint, message: `messages: ${message}` },
  ]);
}
