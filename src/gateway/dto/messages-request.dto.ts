import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { MAX_OUTPUT_TOKENS_CEILING } from '../../common/limits';
import { IsOptionalInRange } from '../../models/dto/model-parameters.dto';

/** Roles of Anthropic's Messages input (the system prompt is the top-level `system`). */
export const ANTHROPIC_ROLES = ['user', 'assistant', 'system'] as const;

const BLOCK = (type: string, properties: object, required: string[]) => ({
  type: 'object',
  properties: { type: { enum: [type] }, ...properties },
  required: ['type', ...required],
});

/** OpenAPI schema of the content blocks a message may hold. */
const CONTENT_BLOCKS = {
  oneOf: [
    BLOCK('text', { text: { type: 'string' } }, ['text']),
    BLOCK(
      'image',
      {
        source: {
          type: 'object',
          description:
            '`{type: "base64", media_type: "image/png|jpeg|webp|gif", data}`, or `{type: "url", url}` of an upload of ours (`/uploads/<name>`)',
        },
      },
      ['source'],
    ),
    BLOCK(
      'tool_use',
      { id: { type: 'string' }, name: { type: 'string' }, input: { type: 'object' } },
      ['id', 'name', 'input'],
    ),
    BLOCK(
      'tool_result',
      {
        tool_use_id: { type: 'string' },
        content: { description: 'a string or text blocks' },
        is_error: { type: 'boolean' },
      },
      ['tool_use_id'],
    ),
  ],
};

/** One input message: `content` a string or content blocks. */
export class AnthropicMessageDto {
  @ApiProperty({
    enum: ANTHROPIC_ROLES,
    description: '`system`: instructions at that point of the conversation (text only)',
  })
  @IsIn(ANTHROPIC_ROLES)
  role: (typeof ANTHROPIC_ROLES)[number];

  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'array', items: CONTENT_BLOCKS }],
    description:
      'a string, or blocks: `text`, `image` (user), `tool_use` (assistant), `tool_result` (user); ' +
      '`cache_control` is accepted and ignored, `thinking` blocks of earlier turns are dropped',
  })
  @IsDefined()
  content: unknown;
}

/**
 * The fields `POST /v1/messages/count_tokens` takes (Anthropic's): what makes the prompt. The
 * blocks of `system`, `messages`, `tools`, `tool_choice` and `thinking` are checked by the
 * mapper, which names the field at fault.
 */
export class CountTokensRequestDto {
  @ApiProperty({
    example: 'claude-haiku-4-5',
    description: 'an id of GET /v1/models (any provider)',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  model: string;

  @ApiProperty({ type: [AnthropicMessageDto], minItems: 1, maxItems: 200 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => AnthropicMessageDto)
  messages: AnthropicMessageDto[];

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string' },
      { type: 'array', items: BLOCK('text', { text: { type: 'string' } }, ['text']) },
    ],
    description: 'the system prompt: a string or text blocks',
  })
  @IsOptional()
  system?: unknown;

  @ApiPropertyOptional({
    type: 'array',
    maxItems: 64,
    items: {
      type: 'object',
      properties: {
        name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
        description: { type: 'string' },
        input_schema: { type: 'object' },
      },
      required: ['name', 'input_schema'],
    },
    description:
      'tools the client runs: the model may call them; calls come back as `tool_use` blocks',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  tools?: unknown[];

  @ApiPropertyOptional({
    type: 'object',
    properties: {
      type: { enum: ['auto', 'any', 'tool', 'none'] },
      name: { type: 'string', description: '`type: "tool"`: the tool to call' },
      disable_parallel_tool_use: { type: 'boolean' },
    },
    required: ['type'],
  })
  @IsOptional()
  @IsObject()
  tool_choice?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    properties: {
      type: { enum: ['enabled', 'adaptive', 'disabled'] },
      budget_tokens: { type: 'integer', minimum: 1024 },
      display: { type: 'string', description: 'accepted, not used' },
    },
    required: ['type'],
    description:
      '`enabled` only for models with the `reasoning` capability (else 400), which reason with ' +
      "their own budget (the catalogue's `reasoningBudget`); `budget_tokens` is accepted. " +
      '`adaptive` (the model decides): models with `reasoning` reason, others answer directly',
  })
  @IsOptional()
  @IsObject()
  thinking?: Record<string, unknown>;
}

/**
 * POST /v1/messages, as Anthropic's Messages API, for any catalogue chat model. `top_k` is
 * refused by name (400); any other unknown field is a 400 naming it.
 */
export class MessagesRequestDto extends CountTokensRequestDto {
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: MAX_OUTPUT_TOKENS_CEILING,
    description:
      "required, as Anthropic requires it: at most the model's `maxOutputTokens` (less its " +
      "reasoning budget) and your plan's cap (PLAN_MAX_OUTPUT_TOKENS)",
  })
  @IsInt()
  @Min(1)
  @Max(MAX_OUTPUT_TOKENS_CEILING)
  max_tokens: number;

  @ApiPropertyOptional({ type: [String], maxItems: 4, description: 'up to 4 stop sequences' })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  stop_sequences?: string[];

  @IsOptionalInRange(0, 1, { description: "per model, see the model's `parameters`" })
  temperature?: number;

  @IsOptionalInRange(0, 1) top_p?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'not supported: any value is a 400' })
  @Allow()
  top_k?: unknown;

  @ApiPropertyOptional({
    default: false,
    description: "true: server-sent events in Anthropic's order",
  })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @ApiPropertyOptional({
    type: 'object',
    properties: { user_id: { type: 'string', maxLength: 256 } },
    description: 'accepted, not used',
  })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      "Anthropic's server-side context edits (e.g. clearing earlier thinking), as Claude Code " +
      'sends them: accepted, not applied (earlier thinking blocks are never sent upstream)',
  })
  @IsOptional()
  @IsObject()
  context_management?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    properties: { effort: { type: 'string' } },
    description:
      'How hard the model should try (`effort`), as Claude Code sends it: accepted, not used',
  })
  @IsOptional()
  @IsObject()
  output_config?: Record<string, unknown>;
}
