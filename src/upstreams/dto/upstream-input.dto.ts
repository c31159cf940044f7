import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  registerDecorator,
  ValidateIf,
} from 'class-validator';
import { UPSTREAM_NAME } from '../upstream.entity';
import { UPSTREAM_PROVIDERS, type UpstreamProvider } from '../upstream-router.types';

/** Most catalogue ids one upstream may list (and map). */
export const MAX_UPSTREAM_MODELS = 200;
// http(s) with a scheme, no TLD needed (local servers), and no user:password in the URL.
const BASE_URL = {
  require_tld: false,
  require_protocol: true,
  protocols: ['http', 'https'],
  disallow_auth: true,
};
const BASE_URL_MESSAGE = 'baseUrl must be an http(s) URL without credentials';
const NAME_MESSAGE =
  'name must be 1-64 characters of a-z, 0-9, ., _ and -, starting with a letter or digit';

/** A `{catalogue id: upstream model name}` object of at most MAX_UPSTREAM_MODELS short strings. */
function IsModelMap(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isModelMap',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message:
          'modelMap must map catalogue ids to model names (strings of at most 200 characters)',
      },
      validator: {
        validate(value: unknown) {
          if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
          const entries = Object.entries(value);
          return (
            entries.length <= MAX_UPSTREAM_MODELS &&
            entries.every(
              ([k, v]) =>
                k.length <= 200 && typeof v === 'string' && v.length >= 1 && v.length <= 200,
            )
          );
        },
      },
    });
}

const MODELS_DOC = {
  type: [String] as [StringConstructor],
  maxItems: MAX_UPSTREAM_MODELS,
  description: 'catalogue ids served; empty: every catalogue model of the provider’s family',
  example: ['gpt-4o-mini'],
};
const MAP_DOC = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'catalogue id → model name sent upstream',
  example: { 'gpt-4o-mini': 'gpt-4o-mini-2024-07-18' },
} as const;
const KEY_DOC = {
  minLength: 1,
  maxLength: 4096,
  description: 'stored encrypted, never answered',
  example: 'sk-upstream-key',
};

/** POST /api/admin/upstreams. */
export class CreateUpstreamDto {
  @ApiProperty({ enum: UPSTREAM_PROVIDERS })
  @IsIn(UPSTREAM_PROVIDERS)
  provider: UpstreamProvider;

  @ApiProperty({ pattern: UPSTREAM_NAME.source, example: 'openai-eu' })
  @IsString()
  @Matches(UPSTREAM_NAME, { message: NAME_MESSAGE })
  name: string;

  @ApiProperty({ maxLength: 2048, example: 'https://api.openai.com/v1' })
  @IsString()
  @MaxLength(2048)
  @IsUrl(BASE_URL, { message: BASE_URL_MESSAGE })
  baseUrl: string;

  @ApiPropertyOptional(KEY_DOC)
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  apiKey?: string;

  @ApiPropertyOptional(MODELS_DOC)
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_UPSTREAM_MODELS)
  @ArrayUnique()
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  models?: string[];

  @ApiPropertyOptional(MAP_DOC)
  @IsOptional()
  @IsModelMap()
  modelMap?: Record<string, string>;

  @ApiPropertyOptional({ default: 0, minimum: -1000, maximum: 1000, description: 'higher first' })
  @IsOptional()
  @IsInt()
  @Min(-1000)
  @Max(1000)
  priority?: number;

  @ApiPropertyOptional({ default: 1, minimum: 1, maximum: 1000 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  weight?: number;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    nullable: true,
    description:
      'requests per minute, all instances together; at it the upstream is skipped until the next minute',
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(1)
  rpm?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    nullable: true,
    description:
      'tokens (prompt + completion) per minute, all instances together; once the answers reach it the upstream is skipped until the next minute',
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(1)
  tpm?: number | null;
}

/**
 * PATCH /api/admin/upstreams/{id}: any of the fields but `provider`; `apiKey` replaces the key
 * (`null` removes it); `models` and `modelMap` are replaced as a whole; `rpm`/`tpm` null clear them.
 */
export class UpdateUpstreamDto {
  @ApiPropertyOptional({ pattern: UPSTREAM_NAME.source })
  @IsOptional()
  @IsString()
  @Matches(UPSTREAM_NAME, { message: NAME_MESSAGE })
  name?: string;

  @ApiPropertyOptional({ maxLength: 2048 })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @IsUrl(BASE_URL, { message: BASE_URL_MESSAGE })
  baseUrl?: string;

  @ApiPropertyOptional({ ...KEY_DOC, type: String, nullable: true })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  apiKey?: string | null;

  @ApiPropertyOptional(MODELS_DOC)
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_UPSTREAM_MODELS)
  @ArrayUnique()
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  models?: string[];

  @ApiPropertyOptional(MAP_DOC)
  @IsOptional()
  @IsModelMap()
  modelMap?: Record<string, string>;

  @ApiPropertyOptional({ minimum: -1000, maximum: 1000 })
  @IsOptional()
  @IsInt()
  @Min(-1000)
  @Max(1000)
  priority?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 1000 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  weight?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, nullable: true })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(1)
  rpm?: number | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, nullable: true })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(1)
  tpm?: number | null;
}
