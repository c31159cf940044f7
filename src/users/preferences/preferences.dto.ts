import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsIn,
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
import { LOCALES, type Locale } from '../../i18n/locale';

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];
export const STREAM_FORMATS = ['text', 'sse'] as const;
export type StreamFormat = (typeof STREAM_FORMATS)[number];

/**
 * PUT /api/user/preferences: every field optional. The body replaces what is stored, so a field
 * left out (or null) goes back to its default. Ranges here are the widest any provider accepts;
 * the effective value is checked again against the chosen model's provider when it is used.
 */
export class UpdatePreferencesDto {
  @ApiPropertyOptional({ enum: LOCALES, nullable: true, description: 'language of messages' })
  @IsOptional()
  @IsIn(LOCALES)
  locale?: Locale | null;

  @ApiPropertyOptional({ enum: THEMES, nullable: true })
  @IsOptional()
  @IsIn(THEMES)
  theme?: Theme | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    example: 'gpt-4o-mini',
    description: 'a model of `GET /api/ai/models` (400 naming `defaultModelId` otherwise)',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  defaultModelId?: string | null;

  @ApiPropertyOptional({ nullable: true, type: Number, minimum: 0, maximum: 2 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(2)
  temperature?: number | null;

  @ApiPropertyOptional({ nullable: true, type: Number, minimum: 0, maximum: 1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  topP?: number | null;

  @ApiPropertyOptional({ nullable: true, type: 'integer', minimum: 1, maximum: 1000 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_OUTPUT_TOKENS)
  maxTokens?: number | null;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: MAX_SYSTEM_PROMPT })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_SYSTEM_PROMPT)
  systemPrompt?: string | null;

  @ApiPropertyOptional({
    enum: STREAM_FORMATS,
    nullable: true,
    description: '`/api/ai/stream` without an `Accept` header: `text` (plain) or `sse`',
  })
  @IsOptional()
  @IsIn(STREAM_FORMATS)
  streamFormat?: StreamFormat | null;
}

/** What `users.preferences` holds: only the fields the user set. */
export type StoredPreferences = {
  [K in keyof UpdatePreferencesDto]?: NonNullable<UpdatePreferencesDto[K]>;
};

// The session user carries the stored preferences (read with the session): their shape is ours.
declare module '../../common/auth/session-user' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SessionPreferences extends StoredPreferences {}
}

/** GET/PUT /api/user/preferences answer: every field, defaults where nothing is stored. */
export class PreferencesDto {
  @ApiProperty({
    enum: [...LOCALES, null],
    nullable: true,
    type: String,
    description: 'null: the request decides (Accept-Language, else en)',
  })
  locale: Locale | null;
  @ApiProperty({ enum: THEMES, default: 'system' }) theme: Theme;
  @ApiProperty({ nullable: true, type: String, description: 'null: each request names a model' })
  defaultModelId: string | null;
  @ApiProperty({ nullable: true, type: Number, description: "null: the model's default" })
  temperature: number | null;
  @ApiProperty({ nullable: true, type: Number, description: "null: the model's default" })
  topP: number | null;
  @ApiProperty({ type: 'integer', default: MAX_OUTPUT_TOKENS }) maxTokens: number;
  @ApiProperty({ nullable: true, type: String }) systemPrompt: string | null;
  @ApiProperty({ enum: STREAM_FORMATS, default: 'text' }) streamFormat: StreamFormat;
}

/** The answer for `stored` (null: nothing saved yet). */
export function mapPreferences(stored: StoredPreferences | null | undefined): PreferencesDto {
  const p = stored ?? {};
  return {
    locale: p.locale ?? null,
    theme: p.theme ?? 'system',
    defaultModelId: p.defaultModelId ?? null,
    temperature: p.temperature ?? null,
    topP: p.topP ?? null,
    maxTokens: p.maxTokens ?? MAX_OUTPUT_TOKENS,
    systemPrompt: p.systemPrompt ?? null,
    streamFormat: p.streamFormat ?? 'text',
  };
}

/** The fields of `dto` that were set (null and absent dropped), as stored. */
export function toStored(dto: UpdatePreferencesDto): StoredPreferences {
  return Object.fromEntries(
    Object.entries(dto).filter(([, v]) => v !== null && v !== undefined),
  ) as StoredPreferences;
}
