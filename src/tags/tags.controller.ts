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
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ChatDto } from '../chats/dto/chat.dto';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { ChatTagIdsDto, CreateTagDto, mapTag, TagDto, UpdateTagDto } from './dto/tag.dto';
import { TagsService } from './tags.service';

const CONFLICTS = {
  status: 409,
  description: 'A tag of that name exists (`code`: TAG_NAME_TAKEN), or 100 tags (LIMIT_REACHED)',
};

/** My private chat tags; envelope B; another user's tag is 404. */
@ApiTags('organising')
@Controller('api/tags')
export class TagsController {
  constructor(private readonly tags: TagsService) {}

  @Get()
  @Endpoint({ summary: 'List my tags', access: 'session' })
  @ApiEnvelopeB(TagDto, { isArray: true, description: 'by name; at most 100, not paginated' })
  async list(@CurrentUser() user: SessionUser): Promise<TagDto[]> {
    return (await this.tags.list(user)).map(mapTag);
  }

  @Post()
  @Endpoint({
    summary: 'Create a tag',
    access: 'session',
    errors: [CONFLICTS],
    body: { type: CreateTagDto, example: { name: 'Travel', color: '#3b82f6' } },
  })
  @ApiEnvelopeB(TagDto, { status: 201 })
  async create(@CurrentUser() user: SessionUser, @Body() dto: CreateTagDto): Promise<TagDto> {
    return mapTag(await this.tags.create(user, dto.name, dto.color ?? null));
  }

  @Patch(':id')
  @Endpoint({
    summary: 'Rename or recolour a tag',
    access: 'session',
    errors: [404, { status: 409, description: 'A tag of that name exists (TAG_NAME_TAKEN)' }],
    body: { type: UpdateTagDto, example: { name: 'Trips', color: null } },
  })
  @ApiEnvelopeB(TagDto, { description: '`color: null` clears the colour' })
  async update(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateTagDto,
  ): Promise<TagDto> {
    return mapTag(await this.tags.update(user, id, dto));
  }

  @Delete(':id')
  @HttpCode(200)
  @Endpoint({ summary: 'Delete a tag', access: 'session', errors: [404] })
  @ApiEnvelopeB(null, { description: 'the tag leaves every chat it was on' })
  async remove(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<void> {
    await this.tags.remove(user, id);
  }
}

/** PUT /api/chats/{id}/tags lives with the tags; chats only reads them for its lists. */
@ApiTags('chats')
@Controller('api/chats/:id/tags')
export class ChatTagsController {
  constructor(private readonly tags: TagsService) {}

  @Put()
  @Endpoint({
    summary: 'Replace my tags on a chat',
    access: 'session',
    errors: [{ status: 404, description: 'The chat is not readable, or a tag is not mine' }],
    body: {
      type: ChatTagIdsDto,
      example: { tagIds: ['7c9e6679-7425-40de-944b-e07fc1f90ae7'] },
    },
  })
  @ApiEnvelopeB(ChatDto, { description: 'the chat as GET /api/chats/{id} shows it' })
  setChatTags(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: ChatTagIdsDto,
  ): Promise<ChatDto> {
    return this.tags.setChatTags(user, id, dto.tagIds);
  }
}
