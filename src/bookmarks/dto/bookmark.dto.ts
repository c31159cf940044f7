import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsOptional, IsString, IsUUID, MaxLength, ValidateIf } from 'class-validator';
import { MESSAGE_ROLES, type MessageRole } from '../../chats/message.entity';

/** Longest note on a bookmark, in characters. */
export const MAX_NOTE_LENGTH = 500;

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** POST /api/bookmarks: a message of a chat I can read, and an optional note. */
export class CreateBookmarkDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  messageId: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: MAX_NOTE_LENGTH })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(MAX_NOTE_LENGTH)
  note?: string | null;
}

/** PATCH /api/bookmarks/{id}: the new note; `null` clears it. */
export class UpdateBookmarkDto {
  @ApiProperty({ type: String, nullable: true, maxLength: MAX_NOTE_LENGTH })
  @IsDefined()
  @ValidateIf((_o, v) => v !== null)
  @Transform(trim)
  @IsString()
  @MaxLength(MAX_NOTE_LENGTH)
  note: string | null;
}

export class BookmarkMessageDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: MESSAGE_ROLES }) role: MessageRole;
  @ApiProperty({ description: 'the first 200 characters of the message' }) excerpt: string;
  @ApiProperty() createdAt: string;
}

export class BookmarkChatDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() title: string;
}

/** A bookmark with its message excerpt and chat, as the list and every bookmark route show it. */
export class BookmarkDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: String, nullable: true }) note: string | null;
  @ApiProperty() createdAt: string;
  @ApiProperty({ type: BookmarkMessageDto }) message: BookmarkMessageDto;
  @ApiProperty({ type: BookmarkChatDto }) chat: BookmarkChatDto;
}
