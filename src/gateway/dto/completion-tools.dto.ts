import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';

/** Tool and function names, as all three providers accept them. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A function the model may call: OpenAI's `tools[].function`. */
export class CompletionFunctionDto {
  @ApiProperty({ pattern: TOOL_NAME.source, example: 'get_weather' })
  @IsString()
  @Matches(TOOL_NAME, { message: 'function.name must match ^[a-zA-Z0-9_-]{1,64}$' })
  name: string;

  @ApiPropertyOptional({ maxLength: 4096, example: 'The weather of a city now' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  description?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'JSON Schema of the arguments object; `{type: "object", properties: {}}` when left out',
    example: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  })
  @IsOptional()
  @IsObject()
  parameters?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'accepted; OpenAI models follow the schema exactly' })
  @IsOptional()
  @IsBoolean()
  strict?: boolean;
}

/** One tool of `tools` (`type: "function"` only): the client runs it, never the server. */
export class CompletionToolDto {
  @ApiProperty({ enum: ['function'] }) @IsIn(['function']) type: 'function';

  @ApiProperty({ type: CompletionFunctionDto })
  @IsObject()
  @ValidateNested()
  @Type(() => CompletionFunctionDto)
  function: CompletionFunctionDto;
}

/** The function an assistant message called: its name and its arguments as JSON text. */
export class CompletionCalledFunctionDto {
  @ApiProperty({ example: 'get_weather' }) @IsString() @Matches(TOOL_NAME) name: string;
  @ApiProperty({ example: '{"city":"Paris"}', description: 'the arguments object as JSON text' })
  @IsString()
  arguments: string;
}

/** A tool call of an assistant message (input) or of the answer (output). */
export class CompletionToolCallDto {
  @ApiProperty({ example: 'call_abc123' }) @IsString() @MaxLength(200) id: string;
  @ApiProperty({ enum: ['function'] }) @IsIn(['function']) type: 'function';
  @ApiProperty({ type: CompletionCalledFunctionDto })
  @IsObject()
  @ValidateNested()
  @Type(() => CompletionCalledFunctionDto)
  function: CompletionCalledFunctionDto;
}

/** A streamed tool call piece: `index` names the call; id, type and name come first. */
export class CompletionToolCallDeltaDto {
  @ApiProperty({ type: 'integer', example: 0 }) index: number;
  @ApiPropertyOptional({ example: 'call_abc123' }) id?: string;
  @ApiPropertyOptional({ enum: ['function'] }) type?: 'function';
  @ApiPropertyOptional({
    type: 'object',
    properties: { name: { type: 'string' }, arguments: { type: 'string' } },
    description: 'the name in the first piece; `arguments` JSON text, to concatenate',
  })
  function?: { name?: string; arguments?: string };
}

/** OpenAPI shapes of `tool_choice` and `response_format` (checked by the mapper). */
export const TOOL_CHOICE_SCHEMA: ApiPropertyOptions = {
  oneOf: [
    { type: 'string', enum: ['auto', 'none', 'required'] },
    {
      type: 'object',
      properties: {
        type: { enum: ['function'] },
        function: { type: 'object', properties: { name: { type: 'string' } } },
      },
      required: ['type', 'function'],
    },
  ],
  description: '`auto` (default with tools), `none`, `required`, or one named function',
};

export const RESPONSE_FORMAT_SCHEMA: ApiPropertyOptions = {
  oneOf: [
    { type: 'object', properties: { type: { enum: ['text'] } }, required: ['type'] },
    { type: 'object', properties: { type: { enum: ['json_object'] } }, required: ['type'] },
    {
      type: 'object',
      properties: {
        type: { enum: ['json_schema'] },
        json_schema: {
          type: 'object',
          properties: {
            name: { type: 'string', pattern: TOOL_NAME.source },
            description: { type: 'string' },
            schema: { type: 'object', additionalProperties: true },
            strict: { type: 'boolean' },
          },
          required: ['name'],
        },
      },
      required: ['type', 'json_schema'],
    },
  ],
  description:
    'a JSON answer: `json_object`, or `json_schema` (with `strict`); models need the ' +
    '`structured_output` capability',
} as ApiPropertyOptions;
