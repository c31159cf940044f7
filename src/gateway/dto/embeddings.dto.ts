import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { MAX_CONTENT_CHARS } from '../../ai';
import { IsOptionalInRange } from '../../models/dto/model-parameters.dto';

/** Most inputs of one `/v1/embeddings` request (OpenAI's own cap is 2048). */
export const MAX_EMBEDDING_INPUTS = 256;
/** Most characters of all inputs together, as the chat routes' messages. */
export const MAX_EMBEDDING_CHARS = MAX_CONTENT_CHARS;
/** Widest vector any catalogue embedding model gives (Gemini's 3072); the model may allow fewer. */
export const MAX_EMBEDDING_DIMENSIONS = 4096;
export const ENCODING_FORMATS = ['float', 'base64'] as const;
export type EncodingFormat = (typeof ENCODING_FORMATS)[number];

/**
 * POST /v1/embeddings, as OpenAI's Embeddings API. `input` is a string or an array of strings;
 * token arrays (OpenAI's pre-tokenized form) are refused with 400 `unsupported_parameter`.
 */
export class EmbeddingsRequestDto {
  @ApiProperty({
    example: 'text-embedding-3-small',
    description: 'an embedding model of the catalogue (`GET /v1/models/{model}` knows it)',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  model: string;

  @ApiProperty({
    oneOf: [
      { type: 'string', minLength: 1 },
      {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        minItems: 1,
        maxItems: MAX_EMBEDDING_INPUTS,
      },
    ],
    description:
      `a non-empty string or up to ${MAX_EMBEDDING_INPUTS} of them, at most ` +
      `${MAX_EMBEDDING_CHARS} characters together, each within the model's context ` +
      '(`maxTokens`, counting ceil(characters / 4)); token arrays: 400 `unsupported_parameter`',
  })
  @IsDefined()
  input: unknown;

  @ApiPropertyOptional({
    enum: ENCODING_FORMATS,
    default: 'float',
    description: '`base64`: each vector as little-endian float32 bytes, base64-encoded',
  })
  @IsOptional()
  @IsIn(ENCODING_FORMATS)
  encoding_format?: EncodingFormat;

  @IsOptionalInRange(1, MAX_EMBEDDING_DIMENSIONS, {
    integer: true,
    description: "vector length (the model's own when absent); the provider may refuse it",
  })
  dimensions?: number;

  @ApiPropertyOptional({ maxLength: 256, description: 'your end-user id; accepted, not used' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  user?: string;
}

/** One vector of the answer. */
export class EmbeddingDto {
  @ApiProperty({ enum: ['embedding'] }) object: 'embedding';
  @ApiProperty({ type: 'integer', description: 'position of its input' }) index: number;
  @ApiProperty({
    oneOf: [
      { type: 'array', items: { type: 'number' } },
      { type: 'string', format: 'byte' },
    ],
    description: 'numbers (`float`), or little-endian float32 bytes in base64 (`base64`)',
  })
  embedding: number[] | string;
}

/** Tokens of the inputs (ceil(characters / 4) each, as charged). */
export class EmbeddingsUsageDto {
  @ApiProperty({ type: 'integer' }) prompt_tokens: number;
  @ApiProperty({ type: 'integer' }) total_tokens: number;
}

/** The answer of POST /v1/embeddings (OpenAI shape), plus our `cost`. */
export class EmbeddingsResponseDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [EmbeddingDto] }) data: EmbeddingDto[];
  @ApiProperty({ example: 'text-embedding-3-small' }) model: string;
  @ApiProperty({ type: EmbeddingsUsageDto }) usage: EmbeddingsUsageDto;
  @ApiProperty({ type: 'integer', description: 'credits charged (our extra field)' })
  cost: number;
}
