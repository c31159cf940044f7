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
  Query,
} from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Page } from '../common/envelope/envelope';
import { ApiErrors } from '../common/openapi/api-errors';
import { PageQueryDto } from '../common/pagination/pagination';
import { ChatsService } from './chats.service';
import { ChatDto, ChatTitleDto, mapChat, mapMessage, MessageDto } from './dto/chat.dto';

/** Spec "Chats" plus the routes it leaves "not shown"; envelope B; owner-only (404 otherwise). */
@ApiTags('chats')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/chats')
export class ChatsController {
  constructor(private readonly chats: ChatsService) {}

  @Get()
  @ApiErrors(400, 401)
  async list(@CurrentUser() user: SessionUser, @Query() q: PageQueryDto): Promise<Page<ChatDto>> {
    const page = await this.chats.listOwn(user, q.limit, q.cursor);
    return new Page(
      page.data.map((c) => mapChat(c.chat, c.messages)),
      page.nextCursor,
    );
  }

  @Post()
  @ApiErrors(400, 401)
  async create(@CurrentUser() user: SessionUser, @Body() dto: ChatTitleDto): Promise<ChatDto> {
    return mapChat(await this.chats.create(user, dto.title), []);
  }

  @Get(':id')
  @ApiErrors(401, 404)
  async get(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<ChatDto> {
    const { chat, messages } = await this.chats.get(user, id);
    return mapChat(chat, messages);
  }

  @Patch(':id')
  @ApiErrors(400, 401, 404)
  async rename(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: ChatTitleDto,
  ): Promise<ChatDto> {
    return mapChat(await this.chats.rename(user, id, dto.title));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiErrors(401, 404)
  async remove(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<void> {
    await this.chats.remove(user, id);
  }

  @Get(':id/messages')
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
