import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, Repository } from 'typeorm';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { decodeCursor, pageSize, toPage } from '../common/pagination/pagination';
import { hasTeamRole } from '../teams/team-role';
import { TeamsService } from '../teams/teams.service';
import { ModelCatalogue } from '../models/model-catalogue';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import { Chat } from './chat.entity';
import {
  chatById,
  chatPageSql,
  chatsOf,
  chatsOfTeam,
  type ChatFilter,
  type ChatPageRow,
} from './chat-list.sql';
import { CHAT_TAGS_OF_USER_SQL } from './chat-tags.sql';
import { chatSettingsToStore } from './chat-settings';
import type { ChatTagDto, MessageAttachmentDto, UpdateChatDto } from './dto/chat.dto';
import { ChatAttachments } from './chat-attachments.service';
import { preparedQuery } from '../database/prepared';
import { Message, type MessageRole } from './message.entity';

/**
 * What a caller wants to do with a chat. `read`: see it and its messages, and continue it
 * through the AI routes. `write` (rename) and `admin` (delete, unshare): the owner, or an
 * OWNER or ADMIN of the team it is shared with.
 */
export type ChatAccess = 'read' | 'write' | 'admin';

/** `own`: the caller's chats; `all`: also the chats shared with the caller's teams. */
export type ChatScope = 'own' | 'all';

/** A page of chats as the API shows them (`ChatDto`, each with its messages). */
export interface ChatPage {
  data: ChatPageRow[];
  nextCursor: string | null;
}

const chatNotFound = () => new AppError(CommonErrorCode.NOT_FOUND, 'Chat not found');

/** Chats and their messages (spec "Chats"); every access goes through `requireChatAccess`. */
@Injectable()
export class ChatsService {
  constructor(
    @InjectRepository(Chat) private readonly chats: Repository<Chat>,
    @InjectRepository(Message) private readonly messages: Repository<Message>,
    private readonly teams: TeamsService,
    private readonly catalogue: ModelCatalogue,
    private readonly attachments: ChatAttachments,
  ) {}

  /**
   * The one object-level access check. The owner may do anything; a member of the team the
   * chat is shared with may `read`, and its OWNERs and ADMINs may also `write` and `admin`.
   * Throws AppError NOT_FOUND (404) for an absent chat or one the caller cannot read (so
   * existence does not leak), FORBIDDEN (403) for a member lacking the team role.
   * Team roles are read from the database on every call.
   */
  async requireChatAccess(user: SessionUser, chatId: string, access: ChatAccess): Promise<Chat> {
    const chat = await this.chats.findOneBy({ id: chatId });
    if (!chat) throw chatNotFound();
    if (chat.userId === user.id) return chat;
    const role = chat.teamId ? await this.teams.roleOf(user.id, chat.teamId) : null;
    if (!role) throw chatNotFound();
    if (access === 'read' || hasTeamRole(role, 'ADMIN')) return chat;
    throw new AppError(
      CommonErrorCode.FORBIDDEN,
      'Only the chat owner or a team OWNER or ADMIN may change this chat',
    );
  }

  /**
   * A message of a chat the caller may read, with its chat; NOT_FOUND (404) for an absent message
   * or one in a chat the caller cannot read (for bookmarks).
   */
  async requireMessageAccess(user: SessionUser, messageId: string): Promise<Message> {
    const message = await this.messages.findOneBy({ id: messageId });
    if (!message) throw new AppError(CommonErrorCode.NOT_FOUND, 'Message not found');
    await this.requireChatAccess(user, message.chatId, 'read');
    return message;
  }

  /**
   * For a chat id the client chose (the AI SDK chat transport's `id`): `existing` when the
   * caller may read that chat, `new` when no chat has the id yet. Another user's chat is
   * NOT_FOUND (404), as in requireChatAccess.
   */
  async clientChatId(user: SessionUser, chatId: string): Promise<'existing' | 'new'> {
    try {
      await this.requireChatAccess(user, chatId, 'read');
      return 'existing';
    } catch (err) {
      if (!(err instanceof AppError && err.code === CommonErrorCode.NOT_FOUND)) throw err;
      if (await this.chats.existsBy({ id: chatId })) throw err;
      return 'new';
    }
  }

  /**
   * The caller's chats (`own`), or also those shared with their teams (`all`), newest
   * `updatedAt` first, each with its messages and the caller's tags (one statement). `tagIds`
   * keeps the chats carrying all of those tags of the caller's.
   */
  async list(
    user: SessionUser,
    scope: ChatScope,
    limit?: number,
    cursor?: string,
    tagIds: string[] = [],
    messages?: number,
  ): Promise<ChatPage> {
    const teamIds = scope === 'all' ? await this.teams.teamIdsOf(user.id) : [];
    return this.page(user, limit, cursor, chatsOf(user.id, teamIds, tagIds), messages);
  }

  /** Chats shared with a team, like `list`; any member may list (404 for non-members). */
  async listForTeam(
    user: SessionUser,
    teamId: string,
    limit?: number,
    cursor?: string,
    messages?: number,
  ): Promise<ChatPage> {
    await this.teams.requireTeamRole(user, teamId, 'MEMBER');
    return this.page(user, limit, cursor, chatsOfTeam(teamId), messages);
  }

  create(user: SessionUser, title: string): Promise<Chat> {
    return this.chats.save(this.chats.create({ title, userId: user.id, teamId: null }));
  }

  /**
   * One chat as `GET /api/chats` lists it (the same statement: messages and the caller's tags),
   * 404 unless the caller may read it.
   */
  async get(user: SessionUser, chatId: string, messages?: number): Promise<ChatPageRow> {
    const chat = await this.requireChatAccess(user, chatId, 'read');
    const q = chatPageSql(chatById(chat.id), user.id, undefined, 1, messages);
    const [row] = await preparedQuery<ChatPageRow>(this.chats.manager.connection, q.sql, q.params);
    if (!row) throw chatNotFound(); // deleted meanwhile
    return this.attachments.sign([row])[0];
  }

  /** The caller's own tags on a chat, by name (tags are private). */
  async tagsOf(user: SessionUser, chatId: string): Promise<ChatTagDto[]> {
    return this.chats.manager.query(CHAT_TAGS_OF_USER_SQL, [chatId, user.id]);
  }

  /**
   * Renames the chat and/or replaces its settings (`{}` clears them); bumps `updatedAt`.
   * Throws VALIDATION_FAILED (400) when neither is given or the settings do not fit their
   * model, UNSUPPORTED_PARAMETER (400), and the access errors of requireChatAccess.
   */
  async update(user: SessionUser, chatId: string, dto: UpdateChatDto): Promise<Chat> {
    if (dto.title === undefined && dto.settings === undefined) {
      throw new ValidationFailedError([
        { property: 'title', constraint: 'isDefined', message: 'title or settings is required' },
      ]);
    }
    const chat = await this.requireChatAccess(user, chatId, 'write');
    if (dto.title !== undefined) chat.title = dto.title;
    if (dto.settings !== undefined)
      chat.settings = chatSettingsToStore(this.catalogue, dto.settings);
    return this.chats.save(chat);
  }

  /** Deletes the chat; its messages go with it (ON DELETE CASCADE). */
  async remove(user: SessionUser, chatId: string): Promise<void> {
    const chat = await this.requireChatAccess(user, chatId, 'admin');
    await this.chats.delete({ id: chat.id });
  }

  /**
   * Shares the chat with `teamId`, or unshares it (`null`). Sharing: only the owner (403 for a
   * team member who is not), with a team they belong to (404 otherwise); moving a shared chat
   * to another team is allowed. Unsharing: `admin` access. Does not bump `updatedAt`.
   */
  async setTeam(user: SessionUser, chatId: string, teamId: string | null): Promise<Chat> {
    const chat = await this.requireChatAccess(user, chatId, teamId ? 'read' : 'admin');
    if (teamId) {
      if (chat.userId !== user.id)
        throw new AppError(CommonErrorCode.FORBIDDEN, 'Only the chat owner may share it');
      await this.teams.requireTeamRole(user, teamId, 'MEMBER');
    }
    try {
      await this.chats.update({ id: chat.id }, { teamId, updatedAt: () => '"updatedAt"' });
    } catch (err) {
      // The team was deleted between the check and the update.
      if (err instanceof QueryFailedError && (err as { code?: string }).code === '23503')
        throw new AppError(CommonErrorCode.NOT_FOUND, 'Team not found');
      throw err;
    }
    return { ...chat, teamId };
  }

  /** Messages of one chat, oldest first, keyset-paginated, with their signed attachments. */
  async listMessages(
    user: SessionUser,
    chatId: string,
    limit?: number,
    cursor?: string,
  ): Promise<{
    data: Message[];
    nextCursor: string | null;
    attachments: Map<string, MessageAttachmentDto[]>;
  }> {
    await this.requireChatAccess(user, chatId, 'read');
    const size = pageSize(limit);
    const qb = this.messages
      .createQueryBuilder('m')
      .where('m.chatId = :chatId', { chatId })
      .orderBy('m.createdAt', 'ASC')
      .addOrderBy('m.seq', 'ASC')
      .take(size + 1);
    if (cursor) {
      const pos = decodeCursor(cursor);
      qb.andWhere('(m.createdAt, m.seq) > (:at, (SELECT seq FROM messages WHERE id = :id))', pos);
    }
    const page = toPage(await qb.getMany(), size, (m) => m.createdAt);
    return { ...page, attachments: await this.attachments.of(page.data.map((m) => m.id)) };
  }

  /** Appends a message and bumps the chat's `updatedAt`. */
  async addMessage(
    chatId: string,
    userId: string | null,
    role: MessageRole,
    content: string,
  ): Promise<Message> {
    return this.chats.manager.transaction(async (m) => {
      const message = await m.save(m.create(Message, { chatId, userId, role, content }));
      await m.update(Chat, { id: chatId }, { updatedAt: () => 'now()' });
      return message;
    });
  }

  /** One keyset page of the chats `filter` chooses, newest `updatedAt` first. */
  private async page(
    user: SessionUser,
    limit: number | undefined,
    cursor: string | undefined,
    filter: ChatFilter,
    messages?: number,
  ): Promise<ChatPage> {
    const size = pageSize(limit);
    const at = cursor ? decodeCursor(cursor) : undefined;
    const q = chatPageSql(filter, user.id, at, size + 1, messages);
    const rows = await preparedQuery<ChatPageRow>(this.chats.manager.connection, q.sql, q.params);
    return toPage(this.attachments.sign(rows), size, (c) => new Date(c.updatedAt));
  }
}
