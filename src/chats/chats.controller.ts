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
import { ApiBearerAuth, ApiCookieAuth, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Page } from '../common/envelope/envelope';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { ApiErrors } from '../common/openapi/api-errors';
import { PageQueryDto } from '../common/pagination/pagination';
import { type ChatPage, ChatsService } from './chats.service';
import {
  ChatDto,
  ChatListQueryDto,
  ChatTeamDto,
  ChatTitleDto,
  mapChat,
  mapMessage,
  MessageDto,
} from './dto/chat.dto';

/**
 * Spec "Chats" plus the routes it leaves "not shown"; envelope B. The owner may do anything;
 * members of the team a chat is shared with may read it, its OWNERs and ADMINs may also
 * rename, unshare or delete it (403 for other members); anyone else gets 404.
 */
@ApiTags('chats')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/chats')
export class ChatsController {
  constructor(private readonly chats: ChatsService) {}

  @Get()
  @ApiEnvelopeB(ChatDto, { paginated: true, description: 'newest updatedAt first' })
  @ApiErrors(400, 401)
  async list(
    @CurrentUser() user: SessionUser,
    @Query() q: ChatListQueryDto,
  ): Promise<Page<ChatDto>> {
    return toChatPage(await this.chats.list(user, q.scope ?? 'own', q.limit, q.cursor));
  }

  @Post()
  @ApiEnvelopeB(ChatDto, { status: 201 })
  @ApiErrors(400, 401)
  async create(@CurrentUser() user: SessionUser, @Body() dto: ChatTitleDto): Promise<ChatDto> {
    return mapChat(await this.chats.create(user, dto.title), []);
  }

  @Get(':id')
  @ApiEnvelopeB(ChatDto, { description: 'the owner or a member of its team; with messages' })
  @ApiErrors(401, 404)
  async get(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<ChatDto> {
    const { chat, messages } = await this.chats.get(user, id);
    return mapChat(chat, messages);
  }

  @Patch(':id')
  @ApiEnvelopeB(ChatDto, { description: 'the owner or a team OWNER/ADMIN' })
  @ApiErrors(400, 401, 403, 404)
  async rename(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: ChatTitleDto,
  ): Promise<ChatDto> {
    return mapChat(await this.chats.rename(user, id, dto.title));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiEnvelopeB(null, { description: 'the owner or a team OWNER/ADMIN' })
  @ApiErrors(401, 403, 404)
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
  @ApiErrors(400, 401, 403, 404)
  async setTeam(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: ChatTeamDto,
  ): Promise<ChatDto> {
    return mapChat(await this.chats.setTeam(user, id, dto.teamId));
  }

  @Get(':id/messages')
  @ApiEnvelopeB(MessageDto, { paginated: true, description: 'oldest first' })
  @ApiErrors(400, 401, 404)
  async messages(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Query() q: PageQueryDto,
  ): Promise<Page<MessageDto>> {
    const page = await this.chats.listMessages(user, id, q.limit, q.cursor);
    return new Page(page.data.map(mapMessage), page.nextCursor);
  }
}

/** GET /api/teams/{id}/chats: lives here because `chats` asks `teams`, never the reverse. */
@ApiTags('teams')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/teams/:id/chats')
export class TeamChatsController {
  constructor(private readonly chats: ChatsService) {}

  @Get()
  @ApiEnvelopeB(ChatDto, { paginated: true, description: 'any member; newest updatedAt first' })
  @ApiErrors(400, 401, 404)
  async list(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Query() q: PageQueryDto,
  ): Promise<Page<ChatDto>> {
    return toChatPage(await this.chats.listForTeam(user, id, q.limit, q.cursor));
  }
}

function toChatPage(page: ChatPage): Page<ChatDto> {
  return new Page<ChatDto>(page.data, page.nextCursor);
}
