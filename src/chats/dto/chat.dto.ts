import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsUUID,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { applyDecorators } from '@nestjs/common';
import { ModelParametersDto } from '../../models/dto/model-parameters.dto';
import { PluginNames } from '../../models/dto/plugin-names.dto';
import { DEFAULT_CHAT_MESSAGES, MAX_CHAT_MESSAGES } from '../chat-limits';
import { PageQueryDto } from '../../common/pagination/pagination';
import { IsBoundedString } from '../../common/validation/validators';
import type { Chat } from '../chat.entity';
import { MESSAGE_ROLES, type Message, type MessageRole, type MessageTool } from '../message.entity';

/** POST /api/chats and PATCH /api/chats/{id}: a title of 1 to 200 characters. */
export class ChatTitleDto {
  @IsBoundedString(1, 200) title: string;
}

/**
 * A chat's model parameters: the AI request's fields, each optional; and the
 * plugins its requests use unless a request names its own.
 */
export class ChatSettingsDto extends ModelParametersDto {
  @PluginNames() plugins?: string[];
}

/**
 * PATCH /api/chats/{id}: a new title, new settings (replacing the old; `{}` clears them), or
 * both. Settings are checked against their model (or, without one, stored as they are and
 * checked when a request uses them).
 */
export class UpdateChatDto {
  @IsBoundedString(1, 200, true) title?: string;

  @ApiPropertyOptional({
    type: ChatSettingsDto,
    description: 'replaces the settings; `{}` clears them',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ChatSettingsDto)
  settings?: ChatSettingsDto;
}

/** `?messages=`: how many of each chat's latest messages a chat read returns. */
function MessagesPerChat() {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: 0,
      maximum: MAX_CHAT_MESSAGES,
      default: DEFAULT_CHAT_MESSAGES,
      description: "each chat's latest messages to include (0: none)",
    }),
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(0),
    Max(MAX_CHAT_MESSAGES),
  );
}

/** GET /api/chats/{id}. */
export class ChatReadQueryDto {
  @MessagesPerChat() messages?: number;
}

/** GET /api/teams/{id}/chats: a page, with `messages` per chat. */
export class ChatPageQueryDto extends PageQueryDto {
  @MessagesPerChat() messages?: number;
}

/** GET /api/chats: `scope=all` adds the chats shared with the caller's teams. */
export class ChatListQueryDto extends ChatPageQueryDto {
  @ApiPropertyOptional({ enum: ['own', 'all'], default: 'own' })
  @IsOptional()
  @IsIn(['own', 'all'])
  scope?: 'own' | 'all';

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description: 'one of my tag ids; repeated, chats carrying all of them',
  })
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? [value] : value))
  @IsArray()
  @ArrayMaxSize(20)
  @IsUUID('all', { each: true })
  tag?: string[];
}

/** PUT /api/chats/{id}/team: a team id shares the chat, `null` unshares it. */
export class ChatTeamDto {
  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  @ValidateIf((_o, v) => v !== null)
  @IsUUID()
  teamId: string | null;
}

/** An image a message was sent with, with a signed link to it. */
export class MessageAttachmentDto {
  @ApiProperty({ format: 'uuid', description: 'send again as `uploadId` to show it to a model' })
  uploadId: string;
  @ApiProperty() filename: string;
  @ApiProperty({ example: 'image/png' }) contentType: string;
  @ApiProperty({ description: 'signed download link (UPLOAD_URL_TTL_SECONDS)' }) url: string;
}

export class MessageDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) chatId: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) userId: string | null;
  @ApiProperty({ enum: MESSAGE_ROLES }) role: MessageRole;
  @ApiProperty() content: string;
  @ApiProperty() createdAt: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'tool use: on an ASSISTANT message `{calls: [{id, name, arguments}]}`, on a TOOL message `{id, name, ok}`',
  })
  tool?: MessageTool;
  @ApiPropertyOptional({ type: [MessageAttachmentDto], description: 'images, in order' })
  attachments?: MessageAttachmentDto[];
}

/** A tag as a chat carries it: only the caller's own tags (tags are private). */
export class ChatTagDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true, example: '#3b82f6' }) color: string | null;
}

export class ChatDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() title: string;
  @ApiProperty({ format: 'uuid' }) userId: string;
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'team it is shared with',
  })
  teamId: string | null;
  @ApiProperty({
    type: ChatSettingsDto,
    description: 'model parameters for replies in this chat (`{}`: none)',
  })
  settings: ChatSettingsDto;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
  @ApiProperty({ type: [ChatTagDto], description: "the caller's own tags on it, by name" })
  tags: ChatTagDto[];
  @ApiPropertyOptional({
    type: [MessageDto],
    description: 'chat reads: the latest `?messages=` (default 20), oldest first among them',
  })
  messages?: MessageDto[];
  @ApiPropertyOptional({
    type: 'integer',
    description: 'with `messages`: all messages of the chat',
  })
  messageCount?: number;
  @ApiPropertyOptional({
    description: 'with `messages`: older messages exist (GET /api/chats/{id}/messages)',
  })
  hasMoreMessages?: boolean;
}

export function mapMessage(m: Message, attachments?: MessageAttachmentDto[]): MessageDto {
  return {
    id: m.id,
    chatId: m.chatId,
    userId: m.userId,
    role: m.role,
    content: m.content,
    createdAt: m.createdAt.toISOString(),
    ...(m.tool ? { tool: m.tool } : {}),
    ...(attachments?.length ? { attachments } : {}),
  };
}

export function mapChat(chat: Chat, tags: ChatTagDto[], messages?: Message[]): ChatDto {
  return {
    id: chat.id,
    title: chat.title,
    userId: chat.userId,
    teamId: chat.teamId,
    settings: chat.settings ?? {},
    createdAt: chat.createdAt.toISOString(),
    updatedAt: chat.updatedAt.toISOString(),
    tags,
    ...(messages
      ? {
          messages: messages.map((m) => mapMessage(m)),
          messageCount: messages.length,
          hasMoreMessages: false,
        }
      : {}),
  };
}
