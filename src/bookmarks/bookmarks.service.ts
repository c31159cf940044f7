import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChatsService } from '../chats/chats.service';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { decodeCursor, pageSize, toPage } from '../common/pagination/pagination';
import { preparedQuery } from '../database/prepared';
import { TeamsService } from '../teams/teams.service';
import {
  DELETE_BOOKMARK_SQL,
  UPDATE_BOOKMARK_NOTE_SQL,
  UPSERT_BOOKMARK_SQL,
  visibleBookmarksSql,
} from './bookmarks.sql';
import type { BookmarkDto } from './dto/bookmark.dto';

const bookmarkNotFound = () => new AppError(CommonErrorCode.NOT_FOUND, 'Bookmark not found');

/**
 * Message bookmarks. Every read goes through one statement that keeps only the
 * bookmarks whose chat the caller can read, so a lost team membership hides them (404 for
 * the routes) without deleting them.
 */
@Injectable()
export class BookmarksService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly chats: ChatsService,
    private readonly teams: TeamsService,
  ) {}

  /** My visible bookmarks, newest first, keyset-paginated on (createdAt, id). */
  async list(
    user: SessionUser,
    limit?: number,
    cursor?: string,
  ): Promise<{ data: BookmarkDto[]; nextCursor: string | null }> {
    const size = pageSize(limit);
    const q = visibleBookmarksSql(
      user.id,
      await this.teams.teamIdsOf(user.id),
      { cursor: cursor ? decodeCursor(cursor) : undefined },
      size + 1,
    );
    const rows = await preparedQuery<BookmarkDto>(this.dataSource, q.sql, q.params);
    return toPage(rows, size, (b) => new Date(b.createdAt));
  }

  /**
   * Bookmarks a message of a chat I can read (404 otherwise). Idempotent: bookmarking it again
   * answers the same bookmark (`created: false`), with the note replaced when one is given.
   */
  async create(
    user: SessionUser,
    messageId: string,
    note: string | null | undefined,
  ): Promise<{ bookmark: BookmarkDto; created: boolean }> {
    const message = await this.chats.requireMessageAccess(user, messageId);
    const [row] = await this.dataSource.query(UPSERT_BOOKMARK_SQL, [
      user.id,
      message.id,
      message.chatId,
      note || null,
      note !== undefined,
    ]);
    return { bookmark: await this.get(user, row.id), created: row.created };
  }

  /** Replaces the note (`null` clears it); 404 unless the bookmark is mine and visible. */
  async update(user: SessionUser, id: string, note: string | null): Promise<BookmarkDto> {
    await this.get(user, id);
    await this.dataSource.query(UPDATE_BOOKMARK_NOTE_SQL, [id, user.id, note || null]);
    return this.get(user, id);
  }

  /** Deletes the bookmark; 404 unless it is mine and visible. */
  async remove(user: SessionUser, id: string): Promise<void> {
    await this.get(user, id);
    await this.dataSource.query(DELETE_BOOKMARK_SQL, [id, user.id]);
  }

  private async get(user: SessionUser, id: string): Promise<BookmarkDto> {
    const q = visibleBookmarksSql(user.id, await this.teams.teamIdsOf(user.id), { id }, 1);
    const [row] = await preparedQuery<BookmarkDto>(this.dataSource, q.sql, q.params);
    if (!row) throw bookmarkNotFound();
    return row;
  }
}
