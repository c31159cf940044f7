import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, MaxLength, Min } from 'class-validator';
import { MESSAGE_ROLES, type MessageRole } from '../../chats/message.entity';

export const SEARCH_MODES = ['hybrid', 'keyword', 'semantic'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];
/** Longest query, in characters. */
export const MAX_QUERY_LENGTH = 500;
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 50;

/** GET /api/search. */
export class SearchQueryDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_QUERY_LENGTH, example: 'the SQL trick for gaps' })
  @IsString()
  @Length(1, MAX_QUERY_LENGTH)
  q: string;

  @ApiPropertyOptional({ enum: SEARCH_MODES, default: 'hybrid' })
  @IsOptional()
  @IsIn(SEARCH_MODES)
  mode?: SearchMode;

  @ApiPropertyOptional({ default: DEFAULT_SEARCH_LIMIT, minimum: 1, maximum: MAX_SEARCH_LIMIT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_SEARCH_LIMIT)
  limit?: number;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

export class SearchChatDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() title: string;
}

export class SearchMessageDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: MESSAGE_ROLES }) role: MessageRole;
  @ApiProperty() createdAt: string;
}

/** One search hit: the message, its chat, a snippet and what to highlight in it. */
export class SearchResultDto {
  @ApiProperty({ type: SearchChatDto }) chat: SearchChatDto;
  @ApiProperty({ type: SearchMessageDto }) message: SearchMessageDto;
  @ApiProperty({ description: 'up to about 200 characters of the message around the match' })
  snippet: string;
  @ApiProperty({
    description: '`[start, end)` offsets into `snippet` (UTF-16 code units, as JavaScript indexes)',
    type: 'array',
    items: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2 },
    example: [[12, 18]],
  })
  highlights: [number, number][];
  @ApiProperty({
    description:
      'higher is better: ts_rank_cd (keyword), cosine (semantic), reciprocal rank fusion (hybrid)',
  })
  score: number;
}
