import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Patch,
  Post,
  Put,
  Query,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Page } from '../common/envelope/envelope';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { PageQueryDto } from '../common/pagination/pagination';
import { type ChatPage, ChatsService } from './chats.service';
import {
  ChatDto,
  ChatListQueryDto,
  ChatPageQueryDto,
  ChatReadQueryDto,
  ChatTeamDto,
  ChatTitleDto,
  mapChat,
  mapMessage,
  MessageDto,
  UpdateChatDto,
} from './dto/chat.dto';

/**
 * Spec "Chats" plus the routes it leaves "not shown"; envelope B. The owner may do anything;
 * members of the team a chat is shared with may read it, its OWNERs and ADMINs may also
 * rename, unshare or delete it (403 for other members); anyone else gets 404.
 */
@ApiTags('chats')
@Controller('api/chats')
export class ChatsController {
  constructor(private readonly chats: ChatsService) {}

  @Get()
  @Endpoint({ summary: 'List my chats', access: 'session', scope: 'chats:read' })
  @ApiEnvelopeB(ChatDto, { paginated: true, description: 'newest updatedAt first' })
  async list(
    @CurrentUser() user: SessionUser,
    @Query() q: ChatListQueryDto,
  ): Promise<Page<ChatDto>> {
    return toChatPage(
      await this.chats.list(user, q.scope ?? 'own', q.limit, q.cursor, q.tag, q.messages),
    );
  }

  @Post()
  @Endpoint({
    summary: 'Create a chat',
    access: 'session',
    scope: 'chats:write',
    body: { type: ChatTitleDto, example: { title: 'Weekend in Lisbon' } },
  })
  @ApiEnvelopeB(ChatDto, { status: 201 })
  async create(@CurrentUser() user: SessionUser, @Body() dto: ChatTitleDto): Promise<ChatDto> {
    return mapChat(await this.chats.create(user, dto.title), [], []);
  }

  @Get(':id')
  @Endpoint({
    summary: 'Read a chat with its messages',
    access: 'session',
    scope: 'chats:read',
    errors: [404],
  })
  @ApiEnvelopeB(ChatDto, { description: 'the owner or a member of its team; with messages' })
  async get(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Query() q: ChatReadQueryDto,
  ): Promise<ChatDto> {
    return this.chats.get(user, id, q.messages);
  }

  @Patch(':id')
  @Endpoint({
    summary: 'Rename a chat, or set its model parameters',
    description:
      "`settings` replaces the chat's model parameters (`{}` clears them); AI requests in this " +
      'chat use them where the request names none. With a `modelId`, each value is checked ' +
      'against that model (400 UNSUPPORTED_PARAMETER, or VALIDATION_FAILED naming the field).',
    access: 'session',
    scope: 'chats:write',
    errors: [403, 404],
    body: {
      type: UpdateChatDto,
      example: {
        title: 'Lisbon, rainy day plan',
        settings: { modelId: 'gpt-4o-mini', temperature: 0.2, stop: ['\n\n'] },
      },
    },
  })
  @ApiEnvelopeB(ChatDto, { description: 'the owner or a team OWNER/ADMIN' })
  async update(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateChatDto,
  ): Promise<ChatDto> {
    const chat = await this.chats.update(user, id, dto);
    return mapChat(chat, await this.chats.tagsOf(user, id));
  }

  @Delete(':id')
  @HttpCode(200)
  @Endpoint({
    summary: 'Delete a chat',
    access: 'session',
    scope: 'chats:write',
    errors: [403, 404],
  })
  @ApiEnvelopeB(null, { description: 'the owner or a team OWNER/ADMIN' })
  async remove(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<void> {
    await this.chats.remove(user, id);
  }

  @Put(':id/team')
  @ApiEnvelopeB(ChatDto, {
    description: 'share (owner, with a team they belong to) or unshare (`teamId: null`)',
  })
  @Endpoint({
    summary: 'Share a chat with a team, or unshare it',
    access: 'session',
    errors: [403, 404],
    body: { type: ChatTeamDto, example: { teamId: '0f8fad5b-d9cb-469f-a165-70867728950e' } },
  })
  async setTeam(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: ChatTeamDto,
  ): Promise<ChatDto> {
    const chat = await this.chats.setTeam(user, id, dto.teamId);
    return mapChat(chat, await this.chats.tagsOf(user, id));
  }

  @Get(':id/messages')
  @Endpoint({
    summary: "List a chat's messages",
    access: 'session',
    scope: 'chats:read',
    errors: [404],
  })
  @ApiEnvelopeB(MessageDto, { paginated: true, description: 'oldest first' })
  async messages(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Query() q: PageQueryDto,
  ): Promise<Page<MessageDto>> {
    const page = await this.chats.listMessages(user, id, q.limit, q.cursor);
    return new Page(
      page.data.map((m) => mapMessage(m, page.attachments.get(m.id))),
      page.nextCursor,
    );
  }
}

/** GET /api/teams/{id}/chats: lives here because `chats` asks `teams`, never the reverse. */
@ApiTags('teams')
@Controller('api/teams/:id/chats')
export class TeamChatsController {
  constructor(private readonly chats: ChatsService) {}

  @Get()
  @Endpoint({
    summary: 'List the chats shared with a team',
    access: 'session',
    scope: 'chats:read',
    errors: [404],
  })
  @ApiEnvelopeB(ChatDto, { paginated: true, description: 'any member; newest updatedAt first' })
  async list(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Query() q: ChatPageQueryDto,
  ): Promise<Page<ChatDto>> {
    return toChatPage(await this.chats.listForTeam(user, id, q.limit, q.cursor, q.messages));
  }
}

function toChatPage(page: ChatPage): Page<ChatDto> {
  return new Page<ChatDto>(page.data, page.nextCursor);
}
