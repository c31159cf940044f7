import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsString,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';

export const INPUT_ROLES = ['system', 'user', 'assistant'] as const;

export class ChatMessageDto {
  @ApiProperty({ enum: INPUT_ROLES }) @IsIn(INPUT_ROLES) role: (typeof INPUT_ROLES)[number];
  @ApiProperty({ maxLength: 100_000 })
  @IsString()
  @MinLength(1)
  @MaxLength(100_000)
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
}

export class UsageDto {
  @ApiProperty() promptTokens: number;
  @ApiProperty() completionTokens: number;
}

export class GenerateResultDto {
  @ApiProperty() text: string;
  @ApiProperty({ type: UsageDto }) usage: UsageDto;
  @ApiProperty({ description: 'credits charged (integer)' }) cost: number;
}
