import { ApiProperty, ApiPropertyOptional, type ApiResponseOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsInt,
  IsNumber,
  IsOptional,
  IsUUID,
  Max,
  Min,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsString,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';

/** Spec Limits 4: at most 1000 output tokens per request. */
export const MAX_OUTPUT_TOKENS = 1000;
/** Total characters of message content accepted in one request (413 above). */
export const MAX_CONTENT_CHARS = 200_000;

export const INPUT_ROLES = ['system', 'user', 'assistant'] as const;

export class ChatMessageDto {
  @ApiProperty({ enum: INPUT_ROLES }) @IsIn(INPUT_ROLES) role: (typeof INPUT_ROLES)[number];
  @ApiProperty({
    description: `non-empty; all contents together at most ${MAX_CONTENT_CHARS} characters (else 413)`,
  })
  @IsString()
  @MinLength(1)
  content: string;
}

/** POST /api/ai/generate body (spec AI). */
export class GenerateDto {
  @ApiProperty({ type: [ChatMessageDto], minItems: 1, maxItems: 200 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => ChatMessageDto)
  messages: ChatMessageDto[];

  @ApiProperty({ example: 'gpt-4o-mini' }) @IsString() @MaxLength(200) modelId: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'continue this chat (own or shared)' })
  @IsOptional()
  @IsUUID()
  chatId?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_OUTPUT_TOKENS, default: MAX_OUTPUT_TOKENS })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_OUTPUT_TOKENS)
  maxTokens?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 2 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(2)
  temperature?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  topP?: number;
}

/** A realistic generate/stream body for the OpenAPI document. */
export const GENERATE_EXAMPLE: GenerateDto = {
  modelId: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You are a concise travel assistant.' },
    { role: 'user', content: 'Plan a rainy afternoon in Lisbon in three steps.' },
  ],
  maxTokens: 400,
  temperature: 0.7,
};

export class UsageDto {
  @ApiProperty({ type: 'integer', example: 42 }) promptTokens: number;
  @ApiProperty({ type: 'integer', example: 128 }) completionTokens: number;
}

export class GenerateResultDto {
  @ApiProperty({ example: '1. Visit the Gulbenkian museum...' }) text: string;
  @ApiProperty({ type: UsageDto }) usage: UsageDto;
  @ApiProperty({ type: 'integer', description: 'credits charged' }) cost: number;
  @ApiProperty({ format: 'uuid', description: 'the chat the exchange was saved in' })
  chatId: string;
}

/** One entry of GET /api/ai/models (spec "Model descriptor", extended form). */
export class ModelDescriptorDto {
  @ApiProperty({ example: 'gpt-4o-mini', description: 'send as `modelId`' }) id: string;
  @ApiProperty({ example: 'GPT-4o mini' }) name: string;
  @ApiProperty({ enum: ['openai', 'anthropic', 'google'] }) providerId: string;
  @ApiProperty({ type: 'integer', description: 'context window, tokens' }) maxTokens: number;
  @ApiProperty({
    example: '0.0000006',
    description: 'decimal string; credits = ceil(tokens × costPerToken × 1000)',
  })
  costPerToken: string;
  @ApiPropertyOptional() description?: string;
  @ApiPropertyOptional({ description: 'USD per thousand prompt tokens' }) inputPrice?: number;
  @ApiPropertyOptional({ description: 'USD per thousand completion tokens' }) outputPrice?: number;
  @ApiProperty({ description: "false when the model's provider has no API key configured" })
  available: boolean;
}

export class ModelsDto {
  @ApiProperty({ type: [ModelDescriptorDto] }) models: ModelDescriptorDto[];
}

/** Event names of the SSE form of POST /api/ai/stream (see SseStreamSink). */
export const SSE_EVENTS = ['delta', 'done', 'error'] as const;

export const STREAM_DESCRIPTION =
  'Answers by `Accept`: `text/plain` (default) streams the reply as incremental UTF-8 text; ' +
  '`text/event-stream` sends Server-Sent Events: `: ping` comments until the first token, ' +
  'then `event: delta` `data: {"text"}` per chunk, and one `event: done` ' +
  '`data: {"usage": {"promptTokens", "completionTokens"}, "cost", "chatId"}` or one ' +
  '`event: error` `data: {"error", "code"}` (a failure after the stream opened). Failures ' +
  'before the stream opens answer JSON with their status.';

/** The 200 of POST /api/ai/stream: two media types, the SSE one with its event names. */
export const STREAM_RESPONSE: ApiResponseOptions = {
  description: 'The reply as it is generated. Headers `X-Chat-Id` and `Server-Timing`.',
  headers: {
    'X-Chat-Id': { description: 'the chat the exchange is saved in', schema: { type: 'string' } },
  },
  content: {
    'text/plain': {
      schema: { type: 'string', description: 'the reply text, chunk by chunk' },
      example: 'Start at the Gulbenkian museum...',
    },
    'text/event-stream': {
      schema: {
        type: 'string',
        description: `SSE events: ${SSE_EVENTS.map((e) => `\`${e}\``).join(', ')}`,
        'x-sse-events': [...SSE_EVENTS],
      } as object,
      example:
        ': ping\n\nevent: delta\ndata: {"text":"Start at"}\n\n' +
        'event: done\ndata: {"usage":{"promptTokens":42,"completionTokens":128},"cost":1,' +
        '"chatId":"6c1f1f9e-0a4e-4bd5-9a53-0d6f3b0d2c71"}\n\n',
    },
  },
};
