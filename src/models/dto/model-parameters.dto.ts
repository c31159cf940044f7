import { applyDecorators } from '@nestjs/common';
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
import {
  MAX_OUTPUT_TOKENS,
  MAX_OUTPUT_TOKENS_CEILING,
  MAX_SYSTEM_PROMPT,
} from '../../common/limits';

export { MAX_OUTPUT_TOKENS, MAX_OUTPUT_TOKENS_CEILING, MAX_SYSTEM_PROMPT };
/** Most stop sequences any provider accepts on every model (OpenAI: 4). */
export const MAX_STOP_SEQUENCES = 4;
/** Longest stop sequence accepted (characters). */
export const MAX_STOP_LENGTH = 200;

/**
 * An optional number in [min, max], validated and documented alike (also used by the `/v1`
 * request, whose fields have OpenAI's names but the same ranges).
 */
export function IsOptionalInRange(
  min: number,
  max: number,
  doc: { integer?: boolean; description?: string; default?: number } = {},
) {
  const { integer, ...rest } = doc;
  return applyDecorators(
    ApiPropertyOptional({
      minimum: min,
      maximum: max,
      ...(integer ? { type: 'integer' } : {}),
      ...rest,
    }),
    IsOptional(),
    integer ? IsInt() : IsNumber(),
    Min(min),
    Max(max),
  );
}

/**
 * The custom model parameters, shared by AI requests and chat settings. Ranges here
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

  @IsOptionalInRange(0, 2, { description: "per provider, see the model's `parameters`" })
  temperature?: number;

  @IsOptionalInRange(0, 1) topP?: number;

  @IsOptionalInRange(1, MAX_OUTPUT_TOKENS_CEILING, {
    integer: true,
    default: MAX_OUTPUT_TOKENS,
    description:
      `at most the model's \`parameters.maxTokens.max\`: ${MAX_OUTPUT_TOKENS} unless ` +
      "MAX_OUTPUT_TOKENS raises it, within the model's `maxOutputTokens`",
  })
  maxTokens?: number;

  @ApiPropertyOptional({
    maxLength: MAX_SYSTEM_PROMPT,
    description: 'sent first, as a system message',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_SYSTEM_PROMPT)
  systemPrompt?: string;

  @IsOptionalInRange(-2, 2) presencePenalty?: number;

  @IsOptionalInRange(-2, 2) frequencyPenalty?: number;

  @ApiPropertyOptional({ type: [String], maxItems: MAX_STOP_SEQUENCES, example: ['\n\n'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_STOP_SEQUENCES)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(MAX_STOP_LENGTH, { each: true })
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
