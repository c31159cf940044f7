import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, Repository } from 'typeorm';
import { ChatsService } from '../chats/chats.service';
import type { ChatPageRow } from '../chats/chat-list.sql';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { TagsErrorCode } from './tags.errors';
import { Tag } from './tag.entity';
import { COUNT_TAGS_SQL, LOCK_USER_TAGS_SQL, SET_CHAT_TAGS_SQL } from './tags.sql';

/** At most this many tags per user (409 LIMIT_REACHED). */
export const MAX_TAGS_PER_USER = 100;

const tagNotFound = () => new AppError(CommonErrorCode.NOT_FOUND, 'Tag not found');

/**
 * Private chat tags. A tag is its owner's alone: another user's tag answers 404,
 * and a chat shows each caller only their own tags, even when shared with a team.
 */
@Injectable()
export class TagsService {
  constructor(
    @InjectRepository(Tag) private readonly tags: Repository<Tag>,
    private readonly chats: ChatsService,
  ) {}

  /** The caller's tags by name (at most MAX_TAGS_PER_USER, so not paginated). */
  list(user: SessionUser): Promise<Tag[]> {
    return this.tags
      .createQueryBuilder('t')
      .where('t.userId = :id', { id: user.id })
      .orderBy('lower(t.name)')
      .addOrderBy('t.id')
      .getMany();
  }

  /**
   * Creates a tag. Throws TAG_NAME_TAKEN (409) when the caller has one of that name in any case,
   * LIMIT_REACHED (409) at MAX_TAGS_PER_USER. A per-user advisory lock makes the count and the
   * insert one decision, so parallel creates cannot pass the limit.
   */
  async create(user: SessionUser, name: string, color: string | null): Promise<Tag> {
    return this.unique(() =>
      this.tags.manager.transaction(async (m) => {
        await m.query(LOCK_USER_TAGS_SQL, [user.id]);
        const [{ n }] = await m.query(COUNT_TAGS_SQL, [user.id]);
        if (n >= MAX_TAGS_PER_USER)
          throw new AppError(CommonErrorCode.LIMIT_REACHED, `At most ${MAX_TAGS_PER_USER} tags`);
        return m.save(m.create(Tag, { userId: user.id, name, color }));
      }),
    );
  }

  /** Renames or recolours the caller's tag (`color: null` clears it); 404 for another's. */
  async update(
    user: SessionUser,
    id: string,
    patch: { name?: string; color?: string | null },
  ): Promise<Tag> {
    const tag = await this.require(user, id);
    if (patch.name !== undefined) tag.name = patch.name;
    if (patch.color !== undefined) tag.color = patch.color;
    return this.unique(() => this.tags.save(tag));
  }

  /** Deletes the caller's tag; it leaves every chat it was on. */
  async remove(user: SessionUser, id: string): Promise<void> {
    const { affected } = await this.tags.delete({ id, userId: user.id });
    if (!affected) throw tagNotFound();
  }

  /**
   * Replaces the caller's tags on a chat they may read (404 otherwise) with `tagIds`, all of
   * which must be the caller's (404 otherwise, nothing changed). Other users' tags on the chat
   * stay. Returns the chat as `GET /api/chats/{id}` shows it.
   */
  async setChatTags(user: SessionUser, chatId: string, tagIds: string[]): Promise<ChatPageRow> {
    await this.chats.requireChatAccess(user, chatId, 'read');
    const ids = [...new Set(tagIds)];
    // One statement: the check that every id is the caller's, the delete and the insert.
    const [row] = await this.tags.manager.query(SET_CHAT_TAGS_SQL, [chatId, user.id, ids]);
    if (!row?.ok) throw tagNotFound();
    return this.chats.get(user, chatId);
  }

  private async require(user: SessionUser, id: string): Promise<Tag> {
    const tag = await this.tags.findOneBy({ id, userId: user.id });
    if (!tag) throw tagNotFound();
    return tag;
  }

  /** Maps the case-insensitive unique index to TAG_NAME_TAKEN (409). */
  private async unique<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof QueryFailedError && (err as { code?: string }).code === '23505')
        throw new AppError(TagsErrorCode.TAG_NAME_TAKEN, 'You already have a tag with this name');
      throw err;
    }
  }
}
