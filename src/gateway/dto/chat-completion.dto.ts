import { OpenRouterPricingDto } from '../../prices/dto/prices.dto';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { MAX_OUTPUT_TOKENS_CEILING } from '../../common/limits';
import { IsOptionalInRange } from '../../models/dto/model-parameters.dto';
import { FallbackModels } from './fallback-models.dto';
import {
  CompletionToolCallDto,
  CompletionToolDto,
  RESPONSE_FORMAT_SCHEMA,
  TOOL_CHOICE_SCHEMA,
} from './completion-tools.dto';

/** Roles of OpenAI's Chat Completions input we accept (`developer` is sent as `system`). */
export const COMPLETION_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;

/**
 * One input message: `content` a string or text parts `[{type: "text", text}]` (an assistant
 * message with `tool_calls` may have none); a `tool` message answers the call `tool_call_id`.
 */
export class CompletionMessageDto {
  @ApiProperty({ enum: COMPLETION_ROLES }) @IsIn(COMPLETION_ROLES) role: string;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', nullable: true },
      {
        type: 'array',
        items: {
          type: 'object',
          properties: { type: { enum: ['text'] }, text: { type: 'string' } },
          required: ['type', 'text'],
        },
      },
    ],
    description: 'a string, or text parts; null or absent only with `tool_calls`',
  })
  @Allow()
  content?: unknown;

  @ApiPropertyOptional({
    type: [CompletionToolCallDto],
    description: 'assistant messages: the tools the model called earlier',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(128)
  @ValidateNested({ each: true })
  @Type(() => CompletionToolCallDto)
  tool_calls?: CompletionToolCallDto[];

  // An assistant message sent back as an answer gave it: accepted, not sent upstream.
  @ApiPropertyOptional({ type: String, nullable: true, description: 'accepted, not sent upstream' })
  @Allow()
  refusal?: unknown;

  @ApiPropertyOptional({ type: 'array', items: {}, description: 'accepted, not sent upstream' })
  @Allow()
  annotations?: unknown;

  @ApiPropertyOptional({ description: '`tool` messages: the id of the call this result answers' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  tool_call_id?: string;

  @ApiPropertyOptional({ maxLength: 64, description: 'accepted, not sent upstream' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  name?: string;
}

export class StreamOptionsDto {
  @ApiPropertyOptional({ description: 'end the stream with a chunk carrying `usage` and `cost`' })
  @IsOptional()
  @IsBoolean()
  include_usage?: boolean;
}

const MAX_TOKENS_DOC =
  "at most the model's `maxOutputTokens` (less its reasoning budget) and your plan's cap " +
  '(PLAN_MAX_OUTPUT_TOKENS: FREE 4096, BASIC 16384, PRO none by default); 4096 within both ' +
  'when left out';

/**
 * POST /v1/chat/completions, as OpenAI's Chat Completions API, with the client's tools and JSON
 * answers. Fields OpenAI has that we cannot honour (several choices, log probabilities, audio…) are accepted by
 * the parser only to answer 400 `unsupported_parameter` naming them; any other unknown field
 * is a 400 too.
 */
export class ChatCompletionRequestDto {
  @ApiProperty({ example: 'gpt-4o-mini', description: 'an id of GET /v1/models' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  model: string;

  @FallbackModels()
  models?: string[];

  @ApiProperty({ type: [CompletionMessageDto], minItems: 1, maxItems: 200 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => CompletionMessageDto)
  messages: CompletionMessageDto[];

  @IsOptionalInRange(1, MAX_OUTPUT_TOKENS_CEILING, { integer: true, description: MAX_TOKENS_DOC })
  max_tokens?: number;

  @IsOptionalInRange(1, MAX_OUTPUT_TOKENS_CEILING, {
    integer: true,
    description: 'the newer name of `max_tokens`, same limits; not with `max_tokens`',
  })
  max_completion_tokens?: number;

  @IsOptionalInRange(0, 2) temperature?: number;

  @IsOptionalInRange(0, 1) top_p?: number;

  @IsOptionalInRange(-2, 2) presence_penalty?: number;

  @IsOptionalInRange(-2, 2) frequency_penalty?: number;

  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 4 }],
    description: 'up to 4 stop sequences',
  })
  @IsOptional()
  stop?: unknown;

  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() stream?: boolean;

  @ApiPropertyOptional({ type: StreamOptionsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => StreamOptionsDto)
  stream_options?: StreamOptionsDto;

  @ApiPropertyOptional({ default: false, description: 'true: save the exchange as a new chat' })
  @IsOptional()
  @IsBoolean()
  store?: boolean;

  @ApiPropertyOptional({ maxLength: 256, description: 'your end-user id; accepted, not used' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  user?: string;

  @ApiPropertyOptional({ type: 'integer', description: 'accepted, not used (best effort at most)' })
  @IsOptional()
  @IsInt()
  seed?: number;

  @ApiPropertyOptional({ type: 'integer', enum: [1], description: 'only 1' })
  @Allow()
  n?: unknown;

  @ApiPropertyOptional({
    type: [CompletionToolDto],
    maxItems: 128,
    description:
      "functions the model may call; the model's calls come back as `tool_calls` for you to run " +
      '(the server runs none); models need the `tools` capability',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(128)
  @ValidateNested({ each: true })
  @Type(() => CompletionToolDto)
  tools?: CompletionToolDto[];

  @ApiPropertyOptional(TOOL_CHOICE_SCHEMA) @Allow() tool_choice?: unknown;

  @ApiPropertyOptional({ type: Boolean, description: 'false: at most one tool call per answer' })
  @Allow()
  parallel_tool_calls?: unknown;

  @ApiPropertyOptional(RESPONSE_FORMAT_SCHEMA) @Allow() response_format?: unknown;

  // OpenAI fields we cannot honour: accepted by the parser only to be refused by name.
  @Allow() logprobs?: unknown;
  @Allow() top_logprobs?: unknown;
  @Allow() logit_bias?: unknown;
  @Allow() functions?: unknown;
  @Allow() function_call?: unknown;
  @Allow() audio?: unknown;
  @Allow() modalities?: unknown;
  @Allow() prediction?: unknown;
  @Allow() web_search_options?: unknown;
  @Allow() reasoning_effort?: unknown;
}

export class PromptTokensDetailsDto {
  @ApiProperty({ type: 'integer', description: 'of prompt_tokens, read from the prompt cache' })
  cached_tokens: number;
}

export class CompletionTokensDetailsDto {
  @ApiProperty({ type: 'integer', description: 'of completion_tokens, the reasoning tokens' })
  reasoning_tokens: number;
}

/** Usage of a completion (tokens); the details only when the provider reports them. */
export class CompletionUsageDto {
  @ApiProperty({ type: 'integer' }) prompt_tokens: number;
  @ApiProperty({ type: 'integer' }) completion_tokens: number;
  @ApiProperty({ type: 'integer' }) total_tokens: number;
  @ApiPropertyOptional({ type: PromptTokensDetailsDto })
  prompt_tokens_details?: PromptTokensDetailsDto;
  @ApiPropertyOptional({ type: CompletionTokensDetailsDto })
  completion_tokens_details?: CompletionTokensDetailsDto;
}

/** Why an answer ended: `tool_calls` when the model called tools (run them, send the results). */
export const FINISH_REASONS = ['stop', 'length', 'tool_calls'] as const;
export type CompletionFinishReason = (typeof FINISH_REASONS)[number];

export class CompletionMessageOutDto {
  @ApiProperty({ enum: ['assistant'] }) role: 'assistant';
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'null when the model only called tools',
  })
  content: string | null;
  @ApiProperty({ type: String, nullable: true }) refusal: null;
  @ApiPropertyOptional({ type: [CompletionToolCallDto], description: 'the tools to run, in order' })
  tool_calls?: CompletionToolCallDto[];
}

export class CompletionChoiceDto {
  @ApiProperty({ type: 'integer', enum: [0] }) index: number;
  @ApiProperty({ type: CompletionMessageOutDto }) message: CompletionMessageOutDto;
  @ApiProperty({ type: Object, nullable: true }) logprobs: null;
  @ApiProperty({ enum: FINISH_REASONS }) finish_reason: CompletionFinishReason;
}

/** A whole completion (`object: "chat.completion"`). */
export class ChatCompletionDto {
  @ApiProperty({ example: 'chatcmpl-3f1c…' }) id: string;
  @ApiProperty({ enum: ['chat.completion'] }) object: 'chat.completion';
  @ApiProperty({ type: 'integer', description: 'Unix seconds' }) created: number;
  @ApiProperty() model: string;
  @ApiProperty({ type: [CompletionChoiceDto] }) choices: CompletionChoiceDto[];
  @ApiProperty({ type: CompletionUsageDto }) usage: CompletionUsageDto;
  @ApiProperty({ type: 'integer', description: 'credits charged (our extra field)' })
  cost: number;
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'with `store: true`: the chat the exchange was saved to (our extra field)',
  })
  chat_id?: string;
}

/** One model of GET /v1/models. */
export class OpenAiModelDto {
  @ApiProperty({ example: 'gpt-4o-mini' }) id: string;
  @ApiProperty({ enum: ['model'] }) object: 'model';
  @ApiProperty({
    type: 'integer',
    description: 'Unix seconds (when this server loaded its catalogue)',
  })
  created: number;
  @ApiProperty({ example: 'openai', description: 'the provider: openai, anthropic or google' })
  owned_by: string;
  @ApiPropertyOptional({
    type: OpenRouterPricingDto,
    description:
      "OpenRouter's `pricing`: USD per token of each kind, the caller's plan's markup included; absent for a model without a price",
  })
  pricing?: OpenRouterPricingDto;
}

export class OpenAiModelListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [OpenAiModelDto] }) data: OpenAiModelDto[];
}
