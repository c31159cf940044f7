import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';

/** Why a message ended, in Anthropic's terms. */
export const STOP_REASONS = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/** A `text` content block of an answer. */
export class AnthropicTextBlockDto {
  @ApiProperty({ enum: ['text'] }) type: 'text';
  @ApiProperty() text: string;
}

/** A `tool_use` content block: a call of one of the client's tools, for the client to run. */
export class AnthropicToolUseBlockDto {
  @ApiProperty({ enum: ['tool_use'] }) type: 'tool_use';
  @ApiProperty({ example: 'toolu_01A09q90qw90lq917835lq9', description: "the provider's call id" })
  id: string;
  @ApiProperty({ example: 'get_weather' }) name: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'the arguments' })
  input: Record<string, unknown>;
}

export type AnthropicContentBlock = AnthropicTextBlockDto | AnthropicToolUseBlockDto;

export const CONTENT_BLOCK_SCHEMA = {
  oneOf: [
    { $ref: getSchemaPath(AnthropicTextBlockDto) },
    { $ref: getSchemaPath(AnthropicToolUseBlockDto) },
  ],
};

/** Usage of a message, in tokens. */
export class AnthropicUsageDto {
  @ApiProperty({
    type: 'integer',
    description: 'prompt tokens neither read from nor written to the cache (as Anthropic counts)',
  })
  input_tokens: number;
  @ApiProperty({ type: 'integer', description: 'generated tokens, reasoning included' })
  output_tokens: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'prompt tokens read from the cache (beside `input_tokens`), when reported',
  })
  cache_read_input_tokens?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'prompt tokens written to the cache (beside `input_tokens`), when reported',
  })
  cache_creation_input_tokens?: number;
}

/** A whole answer of POST /v1/messages (`type: "message"`), plus our `cost`. */
@ApiExtraModels(AnthropicTextBlockDto, AnthropicToolUseBlockDto)
export class AnthropicMessageOutDto {
  @ApiProperty({ example: 'msg_013Zva2CMHLNnXjNJJKqJ2EF' }) id: string;
  @ApiProperty({ enum: ['message'] }) type: 'message';
  @ApiProperty({ enum: ['assistant'] }) role: 'assistant';
  @ApiProperty({ example: 'claude-haiku-4-5' }) model: string;
  @ApiProperty({ type: 'array', items: CONTENT_BLOCK_SCHEMA }) content: AnthropicContentBlock[];
  @ApiProperty({ type: String, enum: [...STOP_REASONS, null], nullable: true })
  stop_reason: StopReason | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'always null: a stop at one of `stop_sequences` reads `end_turn`',
  })
  stop_sequence: string | null;
  @ApiProperty({ type: AnthropicUsageDto }) usage: AnthropicUsageDto;
  @ApiProperty({ type: 'integer', description: 'credits charged (our extra field)' })
  cost: number;
}

/** The answer of POST /v1/messages/count_tokens. */
export class CountTokensResultDto {
  @ApiProperty({
    type: 'integer',
    example: 25,
    description:
      'our estimate of the prompt, the one the credit hold uses (ceil(characters / 4), images at ' +
      "their provider's worst case), not the provider's tokenizer; nothing is charged",
  })
  input_tokens: number;
}
