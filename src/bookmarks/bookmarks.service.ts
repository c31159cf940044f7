import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChatsService } from '../chats/chats.service';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, ErrorCode } from '../common/errors/app-error';
import { decodeCursor, pageSize, toPage } from '../common/pagination/pagination';
import { preparedQuery } from '../database/prepared';
import { TeamsService } from '../teams/teams.service';
import type { BookmarkDto } from './dto/bookmark.dto';

/** ISO 8601 in UTC with milliseconds, as `Date.prototype.toISOString` writes it. */
const iso = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Bookmarks of user `$1` whose chat user `$1` can read now: their own, or shared with one of the
 * teams `$2` (uuid[]). A bookmark on a team chat is hidden while access is lost and shows again
 * when it returns. `extra` is a further condition using `$3…`.
 */
function bookmarksSql(extra: string, limitParam: number): string {
  return `SELECT b.id, b.note, ${iso('b."createdAt"')} AS "createdAt",
      json_build_object('id', m.id, 'role', m.role, 'excerpt', left(m.content, 200),
        'createdAt', ${iso('m."createdAt"')}) AS message,
      json_build_object('id', c.id, 'title', c.title) AS chat
    FROM bookmarks b
    JOIN messages m ON m.id = b."messageId"
    JOIN chats c ON c.id = b."chatId"
    WHERE b."userId" = $1 AND (c."userId" = $1 OR c."teamId" = ANY($2::uuid[]))${extra}
    ORDER BY b."createdAt" DESC, b.id DESC
    LIMIT $${limitParam}`;
}

const bookmarkNotFound = () => new AppError(ErrorCode.NOT_FOUND, 'Bookmark not found');

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
    const params: unknown[] = [user.id, await this.teams.teamIdsOf(user.id)];
    let extra = '';
    if (cursor) {
      const pos = decodeCursor(cursor);
      params.push(pos.at, pos.id);
      extra = ` AND (b."createdAt", b.id) < ($3::timestamptz, $4::uuid)`;
    }
    params.push(size + 1);
    const rows = await preparedQuery<BookmarkDto>(
      this.dataSource,
      bookmarksSql(extra, params.length),
      params,
    );
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
    const [row] = await this.dataSource.query(
      `INSERT INTO bookmarks ("userId", "messageId", "chatId", note) VALUES ($1, $2, $3, $4)
       ON CONFLICT ("userId", "messageId") DO UPDATE
         SET note = CASE WHEN $5 THEN EXCLUDED.note ELSE bookmarks.note END,
             "updatedAt" = CASE WHEN $5 THEN now() ELSE bookmarks."updatedAt" END
       RETURNING id, (xmax = 0) AS created`,
      [user.id, message.id, message.chatId, note || null, note !== undefined],
    );
    return { bookmark: await this.get(user, row.id), created: row.created };
  }

  /** Replaces the note (`null` clears it); 404 unless the bookmark is mine and visible. */
  async update(user: SessionUser, id: string, note: string | null): Promise<BookmarkDto> {
    await this.get(user, id);
    await this.dataSource.query(
      `UPDATE bookmarks SET note = $3, "updatedAt" = now() WHERE id = $1 AND "userId" = $2`,
      [id, user.id, note || null],
    );
    return this.get(user, id);
  }

  /** Deletes the bookmark; 404 unless it is mine and visible. */
  async remove(user: SessionUser, id: string): Promise<void> {
    await this.get(user, id);
    await this.dataSource.query('DELETE FROM bookmarks WHERE id = $1 AND "userId" = $2', [
      id,
      user.id,
    ]);
  }

  private async get(user: SessionUser, id: string): Promise<BookmarkDto> {
    const [row] = await preparedQuery<BookmarkDto>(
      this.dataSource,
      bookmarksSql(' AND b.id = $3', 4),
      [user.id, await this.teams.teamIdsOf(user.id), id, 1],
    );
    if (!row) throw bookmarkNotFound();
    return row;
  }
}
