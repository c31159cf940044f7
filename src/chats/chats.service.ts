import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, ErrorCode } from '../common/errors/app-error';
import { decodeCursor, pageSize, toPage } from '../common/pagination/pagination';
import { Chat } from './chat.entity';
import { Message, type MessageRole } from './message.entity';

export type ChatAccess = 'read' | 'write';

/** Title of a chat saved from an exchange whose first message is empty. */
export const DEFAULT_CHAT_TITLE = 'New chat';

export interface ChatWithMessages {
  chat: Chat;
  messages: Message[];
}

/** Chats and their messages (spec "Chats"); every access goes through `requireChatAccess`. */
@Injectable()
export class ChatsService {
  constructor(
    @InjectRepository(Chat) private readonly chats: Repository<Chat>,
    @InjectRepository(Message) private readonly messages: Repository<Message>,
  ) {}

  /**
   * The one object-level access check: today only the owner may read or write. Anything else,
   * including an absent chat, throws AppError NOT_FOUND (404), so existence does not leak.
   * (Team sharing will widen `read` here.)
   */
  async requireChatAccess(user: SessionUser, chatId: string, _access: ChatAccess): Promise<Chat> {
    const chat = await this.chats.findOneBy({ id: chatId });
    if (!chat || chat.userId !== user.id) throw new AppError(ErrorCode.NOT_FOUND, 'Chat not found');
    return chat;
  }

  /** The user's chats, newest `updatedAt` first, each with its messages (two queries, no N+1). */
  async listOwn(
    user: SessionUser,
    limit?: number,
    cursor?: string,
  ): Promise<{ data: ChatWithMessages[]; nextCursor: string | null }> {
    const size = pageSize(limit);
    const qb = this.chats
      .createQueryBuilder('c')
      .where('c.userId = :userId', { userId: user.id })
      .orderBy('c.updatedAt', 'DESC')
      .addOrderBy('c.id', 'DESC')
      .take(size + 1);
    if (cursor) qb.andWhere('(c.updatedAt, c.id) < (:at, :id)', decodeCursor(cursor));
    const page = toPage(await qb.getMany(), size, (c) => c.updatedAt);
    const byChat = await this.messagesOf(page.data.map((c) => c.id));
    return {
      data: page.data.map((chat) => ({ chat, messages: byChat.get(chat.id) ?? [] })),
      nextCursor: page.nextCursor,
    };
  }

  create(user: SessionUser, title: string): Promise<Chat> {
    return this.chats.save(this.chats.create({ title, userId: user.id, teamId: null }));
  }

  async get(user: SessionUser, chatId: string): Promise<ChatWithMessages> {
    const chat = await this.requireChatAccess(user, chatId, 'read');
    return { chat, messages: (await this.messagesOf([chat.id])).get(chat.id) ?? [] };
  }

  /** Renames the chat; bumps `updatedAt`. */
  async rename(user: SessionUser, chatId: string, title: string): Promise<Chat> {
    const chat = await this.requireChatAccess(user, chatId, 'write');
    chat.title = title;
    return this.chats.save(chat);
  }

  /** Deletes the chat; its messages go with it (ON DELETE CASCADE). */
  async remove(user: SessionUser, chatId: string): Promise<void> {
    const chat = await this.requireChatAccess(user, chatId, 'write');
    await this.chats.delete({ id: chat.id });
  }

  /** Messages of one chat, oldest first, keyset-paginated. */
  async listMessages(
    user: SessionUser,
    chatId: string,
    limit?: number,
    cursor?: string,
  ): Promise<{ data: Message[]; nextCursor: string | null }> {
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
    return toPage(await qb.getMany(), size, (m) => m.createdAt);
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

  /**
   * Saves an AI exchange (spec Limits 7) in one transaction and returns the chat id. Without
   * `chatId`: a new chat titled with the first 50 characters of the first message (or
   * DEFAULT_CHAT_TITLE), every input message with its role upper-cased, then the reply as
   * ASSISTANT. With `chatId` (access already checked by the caller): only the last input message
   * and the reply. `system` messages are never stored. Bumps the chat's `updatedAt`.
   */
  async saveExchange(
    user: SessionUser,
    input: { chatId?: string; messages: { role: string; content: string }[]; reply: string },
  ): Promise<string> {
    const stored = input.messages.filter((m) => m.role !== 'system');
    return this.chats.manager.transaction(async (m) => {
      let chatId = input.chatId;
      let toStore = stored;
      if (chatId) {
        toStore = stored.slice(-1);
        await m.update(Chat, { id: chatId }, { updatedAt: () => 'now()' });
      } else {
        const title = Array.from(stored[0]?.content.trim() ?? '')
          .slice(0, 50)
          .join('');
        const chat = await m.save(
          m.create(Chat, { title: title || DEFAULT_CHAT_TITLE, userId: user.id, teamId: null }),
        );
        chatId = chat.id;
      }
      const rows = [
        ...toStore.map((msg) => ({
          role: msg.role.toUpperCase() as MessageRole,
          content: msg.content,
        })),
        { role: 'ASSISTANT' as const, content: input.reply },
      ].map((r) =>
        m.create(Message, { ...r, chatId, userId: r.role === 'ASSISTANT' ? null : user.id }),
      );
      // One INSERT keeps the order: `seq` follows the row order.
      await m.insert(Message, rows);
      return chatId;
    });
  }

  private async messagesOf(chatIds: string[]): Promise<Map<string, Message[]>> {
    const map = new Map<string, Message[]>();
    if (chatIds.length === 0) return map;
    const rows = await this.messages.find({
      where: { chatId: In(chatIds) },
      order: { createdAt: 'ASC', seq: 'ASC' },
    });
    for (const row of rows) {
      const list = map.get(row.chatId) ?? [];
      list.push(row);
      map.set(row.chatId, list);
    }
    return map;
  }
}
