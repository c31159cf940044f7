import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, IsUUID, Matches, ValidateIf } from 'class-validator';
import { ChatTagDto } from '../../chats/dto/chat.dto';
import { IsBoundedString } from '../../common/validation/validators';
import type { Tag } from '../tag.entity';

const COLOR = /^#[0-9a-f]{6}$/;
const COLOR_MESSAGE = 'color must be #rrggbb';
const lower = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.toLowerCase() : value;

/** POST /api/tags: a name of 1–40 characters and an optional colour `#rrggbb`. */
export class CreateTagDto {
  @IsBoundedString(1, 40) name: string;

  @ApiPropertyOptional({ type: String, nullable: true, pattern: '^#[0-9a-fA-F]{6}$' })
  @IsOptional()
  @Transform(lower)
  @Matches(COLOR, { message: COLOR_MESSAGE })
  color?: string | null;
}

/** PATCH /api/tags/{id}: either field; `color: null` clears the colour. */
export class UpdateTagDto {
  @IsBoundedString(1, 40, true) name?: string;

  @ApiPropertyOptional({ type: String, nullable: true, pattern: '^#[0-9a-fA-F]{6}$' })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @Transform(lower)
  @Matches(COLOR, { message: COLOR_MESSAGE })
  color?: string | null;
}

/** PUT /api/chats/{id}/tags: the caller's tags on the chat after the call (replaces them). */
export class ChatTagIdsDto {
  @ApiProperty({ type: [String], format: 'uuid', maxItems: 100 })
  @IsArray()
  @ArrayMaxSize(100)
  @IsUUID('all', { each: true })
  tagIds: string[];
}

/** A tag of GET/POST /api/tags and PATCH /api/tags/{id}. */
export class TagDto extends ChatTagDto {
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export function mapTag(t: Tag): TagDto {
  return {
    id: t.id,
    name: t.name,
    color: t.color,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
