import { Injectable } from '@nestjs/common';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import type { StatementPart } from '../database/statement-part';
import { type Exchange, saveExchangePart } from './chat-exchange.sql';

/** Title of a chat saved from an exchange whose first message is empty. */
export const DEFAULT_CHAT_TITLE = 'New chat';

/** Called after messages of a chat were saved; must not block (e.g. search queues indexing). */
export type MessagesSavedListener = (chatId: string) => void;

/**
 * Saving AI exchanges (spec Limits 7). The save is a part of the settlement statement of the
 * metered reply (CreditHoldsService.settleWith runs `part`), so charge and exchange commit together;
 * `saved` then reads the part's result and tells the listeners (search indexing), so
 * `chats` stays unaware of their modules.
 */
@Injectable()
export class ChatExchanges {
  private readonly listeners: MessagesSavedListener[] = [];

  /** Registers a listener called after each saved exchange; it must return at once. */
  onMessagesSaved(listener: MessagesSavedListener): void {
    this.listeners.push(listener);
  }

  /**
   * The save as CTEs of another statement, placeholders from `$first` (see saveExchangePart):
   * a new chat with every input message, or only the last one of a continued chat (access
   * already checked by the caller), then the reply; `system` messages are never stored.
   */
  part(user: SessionUser, input: Exchange, first: number): StatementPart<string | null> {
    return saveExchangePart(user.id, input, DEFAULT_CHAT_TITLE, first);
  }

  /**
   * The chat id the part returned, after telling the listeners; throws NOT_FOUND (404) when the
   * chat was deleted while the reply was being generated (nothing was saved then).
   */
  saved(chatId: string | null): string {
    if (!chatId) throw new AppError(CommonErrorCode.NOT_FOUND, 'Chat not found');
    for (const listener of this.listeners) listener(chatId);
    return chatId;
  }
}
