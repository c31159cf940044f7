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
  Res,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Page } from '../common/envelope/envelope';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { PageQueryDto } from '../common/pagination/pagination';
import { BookmarksService } from './bookmarks.service';
import { BookmarkDto, CreateBookmarkDto, UpdateBookmarkDto } from './dto/bookmark.dto';

const EXAMPLE_ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

/**
 * My message bookmarks; envelope B. A bookmark whose chat I can no longer read is
 * hidden (404) until access returns.
 */
@ApiTags('organising')
@Controller('api/bookmarks')
export class BookmarksController {
  constructor(private readonly bookmarks: BookmarksService) {}

  @Get()
  @Endpoint({ summary: 'List my bookmarks', access: 'session' })
  @ApiEnvelopeB(BookmarkDto, { paginated: true, description: 'newest first' })
  async list(
    @CurrentUser() user: SessionUser,
    @Query() q: PageQueryDto,
  ): Promise<Page<BookmarkDto>> {
    const page = await this.bookmarks.list(user, q.limit, q.cursor);
    return new Page(page.data, page.nextCursor);
  }

  @Post()
  @Endpoint({
    summary: 'Bookmark a message',
    description:
      'A message of a chat I can read. Bookmarking it again answers 200 and the same bookmark.',
    access: 'session',
    errors: [{ status: 404, description: 'No such message, or its chat is not readable' }],
    body: { type: CreateBookmarkDto, example: { messageId: EXAMPLE_ID, note: 'Hotel list' } },
  })
  @ApiEnvelopeB(BookmarkDto, { status: 201, description: 'bookmarked' })
  @ApiEnvelopeB(BookmarkDto, { status: 200, description: 'it was bookmarked already' })
  async create(
    @CurrentUser() user: SessionUser,
    @Body() dto: CreateBookmarkDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<BookmarkDto> {
    const { bookmark, created } = await this.bookmarks.create(user, dto.messageId, dto.note);
    res.status(created ? 201 : 200);
    return bookmark;
  }

  @Patch(':id')
  @Endpoint({
    summary: "Change a bookmark's note",
    access: 'session',
    errors: [404],
    body: { type: UpdateBookmarkDto, example: { note: 'Hotels, second option' } },
  })
  @ApiEnvelopeB(BookmarkDto, { description: '`note: null` clears it' })
  update(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateBookmarkDto,
  ): Promise<BookmarkDto> {
    return this.bookmarks.update(user, id, dto.note);
  }

  @Delete(':id')
  @HttpCode(200)
  @Endpoint({ summary: 'Delete a bookmark', access: 'session', errors: [404] })
  @ApiEnvelopeB(null)
  async remove(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<void> {
    await this.bookmarks.remove(user, id);
  }
}
