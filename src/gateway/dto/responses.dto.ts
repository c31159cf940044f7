import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  Allow,
  IsBoolean,
  IsDefined,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
} from 'class-validator';
import { MAX_OUTPUT_TOKENS_CEILING } from '../../common/limits';
import { IsOptionalInRange } from '../../models/dto/model-parameters.dto';
import { FallbackModels } from './fallback-models.dto';

/** Longest `instructions` (a system message), as a message's share of the request's text. */
export const MAX_INSTRUCTIONS_CHARS = 200_000;
/** Most input items of one request (a message, a function call or its output each count). */
export const MAX_INPUT_ITEMS = 200;
/** Most function tools offered in one request. */
export const MAX_TOOLS = 64;

const INPUT_DOC =
  'a string (one user message), or items: messages `{role: user|system|developer|assistant, ' +
  'content}` (content a string or parts `input_text`, `input_image` with `image_url` a data URL ' +
  'or the URL of an upload of ours, `output_text` for assistant turns), `function_call` ' +
  `\`{call_id, name, arguments}\` and \`function_call_output\` \`{call_id, output}\`; at most ${MAX_INPUT_ITEMS} items`;

/**
 * POST /v1/responses, as OpenAI's Responses API. The fields OpenAI has that we cannot honour
 * (built-in tools, `background`, `include`, `reasoning`, `conversation`…) are accepted by the
 * parser only to answer 400 `unsupported_parameter` naming them; any other unknown field is a
 * 400 too. `input`, `tools`, `tool_choice`, `text` and `metadata` are checked by the mapper
 * (responses-input.mapper.ts), which names the offending path in `param`.
 */
export class ResponseCreateDto {
  @ApiProperty({ example: 'gpt-4o-mini', description: 'an id of GET /v1/models' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  model: string;

  @FallbackModels()
  models?: string[];

  @ApiProperty({
    oneOf: [
      { type: 'string', minLength: 1 },
      { type: 'array', items: { type: 'object' } },
    ],
    description: INPUT_DOC,
  })
  @IsDefined()
  input: unknown;

  @ApiPropertyOptional({
    maxLength: MAX_INSTRUCTIONS_CHARS,
    description: 'a system message put first; not carried over by `previous_response_id`',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_INSTRUCTIONS_CHARS)
  instructions?: string;

  @ApiPropertyOptional({
    type: 'array',
    maxItems: MAX_TOOLS,
    items: {
      type: 'object',
      properties: {
        type: { enum: ['function'] },
        name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
        description: { type: 'string' },
        parameters: { type: 'object', additionalProperties: true },
        strict: { type: 'boolean' },
      },
      required: ['type', 'name'],
    },
    description:
      'function tools the client runs (their calls come back as `function_call` items, never ' +
      'run here); built-in tools (`web_search`, `file_search`…): 400 `unsupported_parameter`',
  })
  @Allow()
  tools?: unknown;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: ['auto', 'none', 'required'] },
      {
        type: 'object',
        properties: { type: { enum: ['function'] }, name: { type: 'string' } },
        required: ['type', 'name'],
      },
    ],
    description: 'how the model may use `tools` (default `auto`)',
  })
  @Allow()
  tool_choice?: unknown;

  @ApiPropertyOptional({ default: true, description: 'false: at most one function call' })
  @IsOptional()
  @IsBoolean()
  parallel_tool_calls?: boolean;

  @ApiPropertyOptional({
    type: 'object',
    properties: {
      format: {
        type: 'object',
        properties: {
          type: { enum: ['text', 'json_object', 'json_schema'] },
          name: { type: 'string' },
          schema: { type: 'object', additionalProperties: true },
          strict: { type: 'boolean' },
          description: { type: 'string' },
        },
        required: ['type'],
      },
    },
    description: "the answer's format: `text` (default), `json_object`, or `json_schema`",
  })
  @Allow()
  text?: unknown;

  @IsOptionalInRange(1, MAX_OUTPUT_TOKENS_CEILING, {
    integer: true,
    description:
      "at most the model's `maxOutputTokens` (less its reasoning budget) and your plan's cap " +
      '(PLAN_MAX_OUTPUT_TOKENS: FREE 4096, BASIC 16384, PRO none by default); 4096 within both ' +
      'when left out. A reply cut at it has `status: "incomplete"`',
  })
  max_output_tokens?: number;

  @IsOptionalInRange(0, 2) temperature?: number;

  @IsOptionalInRange(0, 1) top_p?: number;

  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() stream?: boolean;

  @ApiPropertyOptional({
    default: false,
    description:
      'true: save the exchange as a chat and the response for `GET /v1/responses/{response_id}` and ' +
      '`previous_response_id`',
  })
  @IsOptional()
  @IsBoolean()
  store?: boolean;

  @ApiPropertyOptional({
    example: 'resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
    description:
      'continue a stored response of yours (its input and output come first); needs ' +
      '`store: true`, and with an API key the `chats:write` scope (the exchange joins its chat)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  previous_response_id?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 512 },
    description: 'up to 16 string values (keys ≤ 64 characters), echoed in the answer',
  })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ maxLength: 256, description: 'your end-user id; accepted, not used' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  user?: string;

  @ApiPropertyOptional({ maxLength: 256, description: 'accepted, not used' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  safety_identifier?: string;

  @ApiPropertyOptional({ maxLength: 256, description: 'accepted, not used' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  prompt_cache_key?: string;

  // OpenAI fields we cannot honour: accepted by the parser only to be refused by name.
  @Allow() background?: unknown;
  @Allow() n?: unknown;
  @Allow() include?: unknown;
  @Allow() reasoning?: unknown;
  @Allow() conversation?: unknown;
  @Allow() prompt?: unknown;
  @Allow() truncation?: unknown;
  @Allow() max_tool_calls?: unknown;
  @Allow() top_logprobs?: unknown;
  @Allow() service_tier?: unknown;
  @Allow() stream_options?: unknown;
  @Allow() context_management?: unknown;
  @Allow() prompt_cache_retention?: unknown;
}
