import { MarkupsDto, ShownPricesDto } from '../../prices/dto/prices.dto';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { CAPABILITIES, type Capability } from '../../models/model-entry';
import {
  MAX_OUTPUT_TOKENS,
  ModelParametersDto,
  PARAMETER_NAMES,
  type ParameterName,
} from '../../models/dto/model-parameters.dto';
import { PluginNames } from '../../models/dto/plugin-names.dto';
import {
  IsMessageContent,
  MAX_IMAGES_PER_REQUEST,
  MESSAGE_CONTENT_SCHEMA,
  MessagePartDto,
} from './message-content';
import {
  IsInt,
  Max,
  Min,
  IsOptional,
  IsUUID,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsString,
  MinLength,
  ValidateNested,
} from 'class-validator';
import type { MessageContent } from '../../models/call.types';

export { MAX_OUTPUT_TOKENS };
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

/** A message of an AI request: its content is text, or parts with images. */
@ApiExtraModels(MessagePartDto)
export class GenerateMessageDto {
  @ApiProperty({ enum: INPUT_ROLES }) @IsIn(INPUT_ROLES) role: (typeof INPUT_ROLES)[number];
  @ApiProperty({
    ...MESSAGE_CONTENT_SCHEMA,
    description:
      `a string, or parts \`[{type: "text", text}, {type: "image", uploadId}]\` (at most ` +
      `${MAX_IMAGES_PER_REQUEST} images per request, to models with the \`vision\` capability); ` +
      `all text together at most ${MAX_CONTENT_CHARS} characters (else 413)`,
  })
  @IsMessageContent()
  content: MessageContent;
}

/** Tool-loop steps (model calls) per request when `maxToolSteps` is not given. */
export const DEFAULT_MAX_TOOL_STEPS = 5;

/**
 * POST /api/ai/generate and /api/ai/stream body (spec AI), with the custom model parameters:
 * each is the request's, else the chat's settings, else the preferences', else the default.
 * `modelId` is required only when neither the chat nor the preferences name one.
 */
export class GenerateDto extends ModelParametersDto {
  @ApiProperty({ type: [GenerateMessageDto], minItems: 1, maxItems: 200 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => GenerateMessageDto)
  messages: GenerateMessageDto[];

  @ApiPropertyOptional({ format: 'uuid', description: 'continue this chat (own or shared)' })
  @IsOptional()
  @IsUUID()
  chatId?: string;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      "spend from this team's credit pool (a member only, else 404); null: from my own balance " +
      "even in a team chat; absent: the API key's team, else the chat's team, else my own balance",
  })
  @IsOptional()
  @IsUUID()
  teamId?: string | null;

  @PluginNames()
  plugins?: string[];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 10,
    default: DEFAULT_MAX_TOOL_STEPS,
    description: 'model calls of the tool loop at most; each is held and charged on its own',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10)
  maxToolSteps?: number;
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
  @ApiProperty({
    type: 'integer',
    example: 128,
    description: 'all generated tokens, reasoning included (billed alike)',
  })
  completionTokens: number;
  @ApiPropertyOptional({
    type: 'integer',
    example: 64,
    description: 'of completionTokens, the reasoning tokens, when the provider reports them',
  })
  reasoningTokens?: number;
  @ApiPropertyOptional({
    type: 'integer',
    example: 1024,
    description:
      'of promptTokens, those read from the prompt cache, when the provider reports them',
  })
  cachedTokens?: number;
  @ApiPropertyOptional({
    type: 'integer',
    example: 0,
    description:
      'of promptTokens, those written to the prompt cache, when the provider reports them',
  })
  cacheWriteTokens?: number;
}

/**
 * `skippedParameters` of an answer: inherited parameters (the chat's settings, the preferences)
 * the model does not take, not sent. Present only when at least one was skipped.
 */
export function SkippedParameters() {
  return ApiPropertyOptional({
    enum: PARAMETER_NAMES,
    isArray: true,
    example: ['temperature'],
    description:
      "inherited from the chat's settings or the preferences and not taken by the model " +
      '(unsupported, or out of its range): not sent, the model default applies; ' +
      'present only when one was skipped',
  });
}

export class GenerateResultDto {
  @ApiProperty({
    example: 'gpt-4o-mini',
    description:
      'the model that answered: the requested one, or a fallback when its upstreams all failed (priced at its rate)',
  })
  modelId: string;
  @ApiProperty({ example: '1. Visit the Gulbenkian museum...' }) text: string;
  @ApiProperty({ type: UsageDto }) usage: UsageDto;
  @ApiProperty({ type: 'integer', description: 'credits charged' }) cost: number;
  @ApiProperty({ format: 'uuid', description: 'the chat the exchange was saved in' })
  chatId: string;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'with plugins: model calls made (usage and cost are their sums)',
  })
  modelCalls?: number;
  @ApiPropertyOptional({
    enum: ['stop', 'max_tool_steps'],
    description: 'with plugins: `max_tool_steps` when the model still asked for tools at the limit',
  })
  stopReason?: 'stop' | 'max_tool_steps';
  @SkippedParameters() skippedParameters?: ParameterName[];
}

export class ParameterRangeDto {
  @ApiProperty({ example: 0 }) min: number;
  @ApiProperty({ example: 2 }) max: number;
}

export class StopRuleDto {
  @ApiProperty({ type: 'integer', example: 4 }) maxItems: number;
}

export class SystemPromptRuleDto {
  @ApiProperty({ type: 'integer', example: 4000 }) maxLength: number;
}

/**
 * The parameters a model accepts, with their ranges. A parameter that is absent is not supported
 * by the model's provider: sending it (or inheriting it from chat settings or preferences) is
 * 400 UNSUPPORTED_PARAMETER.
 */
export class ModelParameterRulesDto {
  @ApiProperty({ type: ParameterRangeDto }) maxTokens: ParameterRangeDto;
  @ApiProperty({ type: SystemPromptRuleDto }) systemPrompt: SystemPromptRuleDto;
  @ApiPropertyOptional({ type: ParameterRangeDto }) temperature?: ParameterRangeDto;
  @ApiPropertyOptional({ type: ParameterRangeDto }) topP?: ParameterRangeDto;
  @ApiPropertyOptional({ type: ParameterRangeDto }) presencePenalty?: ParameterRangeDto;
  @ApiPropertyOptional({ type: ParameterRangeDto }) frequencyPenalty?: ParameterRangeDto;
  @ApiPropertyOptional({ type: StopRuleDto }) stop?: StopRuleDto;
}

/** One entry of GET /api/ai/models (spec "Model descriptor", extended form). */
export class ModelDescriptorDto {
  @ApiProperty({ example: 'gpt-4o-mini', description: 'send as `modelId`' }) id: string;
  @ApiProperty({ example: 'GPT-4o mini' }) name: string;
  @ApiProperty({ enum: ['openai', 'anthropic', 'google'] }) providerId: string;
  @ApiProperty({ type: 'integer', description: 'context window, tokens' }) maxTokens: number;
  @ApiProperty({
    type: 'integer',
    example: 16384,
    description:
      "most tokens generated in one reply, thinking included (the provider's limit); a request " +
      'may ask for this less `reasoningBudget`',
  })
  maxOutputTokens: number;
  @ApiProperty({
    example: '0.0000006',
    description: 'decimal string; credits = ceil(tokens × costPerToken × 1000)',
  })
  costPerToken: string;
  @ApiPropertyOptional() description?: string;
  @ApiPropertyOptional({ description: 'USD per thousand prompt tokens' }) inputPrice?: number;
  @ApiPropertyOptional({ description: 'USD per thousand completion tokens' }) outputPrice?: number;
  @ApiPropertyOptional({ description: 'USD per thousand prompt tokens read from the cache' })
  cachedInputPrice?: number;
  @ApiPropertyOptional({ description: 'USD per thousand prompt tokens written to the cache' })
  cacheWritePrice?: number;
  @ApiPropertyOptional({
    description: 'USD per thousand prompt tokens written to the cache for 1 hour',
  })
  cacheWrite1hPrice?: number;
  @ApiPropertyOptional({ description: 'USD per thousand reasoning tokens' })
  reasoningPrice?: number;
  @ApiProperty({ description: "false when the model's provider has no API key configured" })
  available: boolean;
  @ApiProperty({ enum: CAPABILITIES, isArray: true, example: ['vision', 'tools'] })
  capabilities: Capability[];
  @ApiPropertyOptional({
    type: 'integer',
    description: 'reasoning models: thinking tokens per request, held and billed as completion',
  })
  reasoningBudget?: number;
  @ApiProperty({ type: ModelParameterRulesDto }) parameters: ModelParameterRulesDto;
  @ApiPropertyOptional({
    type: ShownPricesDto,
    description:
      "each kind of token's price in force now, USD per million, and the markup (the default plan's); absent: no price (MODEL_NOT_PRICED)",
  })
  prices?: ShownPricesDto;
}

export class ModelsDto {
  @ApiProperty({ type: [ModelDescriptorDto] }) models: ModelDescriptorDto[];
  @ApiProperty({
    type: MarkupsDto,
    description: 'the markups of the plans (CREDIT_PRICING=tokens)',
  })
  markups: MarkupsDto;
}
