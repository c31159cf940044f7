import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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
