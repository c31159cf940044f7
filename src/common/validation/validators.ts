import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';

/** A required email, trimmed and lower-cased before validation (max 320 characters). */
export function IsNormalizedEmail() {
  return applyDecorators(
    ApiProperty({ example: 'ada@example.com', maxLength: 320 }),
    Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value)),
    IsEmail({}, { message: 'email must be a valid email address' }),
    MaxLength(320),
  );
}

/** A trimmed string of `min`..`max` characters; optional when `optional` is set. */
export function IsBoundedString(min: number, max: number, optional = false) {
  const doc = { minLength: min, maxLength: max };
  return applyDecorators(
    ...(optional ? [ApiPropertyOptional(doc), IsOptional()] : [ApiProperty(doc)]),
    Transform(({ value }) => (typeof value === 'string' ? value.trim() : value)),
    IsString(),
    MinLength(min),
    MaxLength(max),
  );
}

/** Optional avatar address: http(s) URL or an `/uploads/...` path, so no `javascript:` links. */
export function IsOptionalAvatarUrl() {
  return applyDecorators(
    ApiPropertyOptional({ example: 'https://example.com/ada.png', maxLength: 2048 }),
    IsOptional(),
    IsString(),
    MaxLength(2048),
    Matches(/^(https?:\/\/|\/uploads\/)\S+$/, {
      message: 'avatar must be an http(s) URL or an /uploads/ path',
    }),
  );
}
