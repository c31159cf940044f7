import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
} from 'class-validator';
import { MAX_FALLBACK_MODELS } from '../../models/model-entry';

/**
 * The `models` field of `/v1/chat/completions` and `/v1/responses` (OpenRouter's): models tried
 * in order when every upstream of `model` failed with a retryable error, replacing the
 * catalogue's fallbacks. Each an id of GET /v1/models; 1 to MAX_FALLBACK_MODELS of them.
 */
export function FallbackModels(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: [String],
      minItems: 1,
      maxItems: MAX_FALLBACK_MODELS,
      example: ['gpt-4o-mini', 'claude-haiku-4-5'],
      description:
        'fallback models, tried in order when every upstream of `model` failed (429, 5xx, ' +
        'timeouts; never after a 4xx): ids of GET /v1/models, `model` itself skipped, at most ' +
        `${MAX_FALLBACK_MODELS}. Replaces the catalogue's fallbacks; a model lacking what the ` +
        'request needs (vision, tools, structured output, a parameter it sets) is skipped. The ' +
        'hold covers the dearest; the answer is charged at, and its `model` names, the one that ' +
        'answered.',
    }),
    IsOptional(),
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(MAX_FALLBACK_MODELS),
    IsString({ each: true }),
    MinLength(1, { each: true }),
    MaxLength(200, { each: true }),
  );
}
