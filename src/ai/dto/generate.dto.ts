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

export class UsageDto {
  @ApiProperty() promptTokens: number;
  @ApiProperty() completionTokens: number;
}

export class GenerateResultDto {
  @ApiProperty() text: string;
  @ApiProperty({ type: UsageDto }) usage: UsageDto;
  @ApiProperty({ description: 'credits charged (integer)' }) cost: number;
  @ApiProperty({ format: 'uuid', description: 'the chat the exchange was saved in' })
  chatId: string;
}
