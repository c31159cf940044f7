import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { MAX_OUTPUT_TOKENS, MAX_SYSTEM_PROMPT } from '../../common/limits';

export { MAX_OUTPUT_TOKENS, MAX_SYSTEM_PROMPT };
/** Most stop sequences any provider accepts on every model (OpenAI: 4). */
export const MAX_STOP_SEQUENCES = 4;

/**
 * The custom model parameters (issue 12 §4), shared by AI requests and chat settings. Ranges here
 * are the widest any provider accepts; the effective values are checked against the chosen
 * model's own `parameters` (GET /api/ai/models) before anything is held or sent.
 */
export class ModelParametersDto {
  @ApiPropertyOptional({
    example: 'gpt-4o-mini',
    description: "else the chat's settings, else the preferred `defaultModelId` (400 if none)",
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  modelId?: string;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 2,
    description: "per provider, see the model's `parameters`",
  })
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

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_OUTPUT_TOKENS,
    default: MAX_OUTPUT_TOKENS,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_OUTPUT_TOKENS)
  maxTokens?: number;

  @ApiPropertyOptional({
    maxLength: MAX_SYSTEM_PROMPT,
    description: 'sent first, as a system message',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_SYSTEM_PROMPT)
  systemPrompt?: string;

  @ApiPropertyOptional({ minimum: -2, maximum: 2 })
  @IsOptional()
  @IsNumber()
  @Min(-2)
  @Max(2)
  presencePenalty?: number;

  @ApiPropertyOptional({ minimum: -2, maximum: 2 })
  @IsOptional()
  @IsNumber()
  @Min(-2)
  @Max(2)
  frequencyPenalty?: number;

  @ApiPropertyOptional({ type: [String], maxItems: MAX_STOP_SEQUENCES, example: ['\n\n'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_STOP_SEQUENCES)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(200, { each: true })
  stop?: string[];
}

/** The parameter names, in the order they are documented and checked. */
export const PARAMETER_NAMES = [
  'temperature',
  'topP',
  'maxTokens',
  'systemPrompt',
  'presencePenalty',
  'frequencyPenalty',
  'stop',
] as const;
export type ParameterName = (typeof PARAMETER_NAMES)[number];
/** Parameter values without the model. */
export type ParameterValues = Omit<ModelParametersDto, 'modelId'>;
