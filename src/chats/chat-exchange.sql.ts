import { randomUUID } from 'node:crypto';
import type { StatementPart } from '../database/statement-part';

/** An AI exchange to save (see ChatExchanges). */
export interface Exchange {
  /** Continue this chat (access already checked by the caller). */
  chatId?: string;
  /** Id for the new chat (lets a stream announce it before saving). */
  newChatId?: string;
  messages: { role: string; content: string }[];
  reply: string;
}

/**
 * Saving an exchange (spec Limits 7) as CTEs of a larger statement, its placeholders numbered
 * from `$first`: create the chat (titled with the first 50 characters of the first message, else
 * `defaultTitle`) or touch it, then insert the messages in order, so `seq` follows the
 * conversation. A new chat stores every input message, a continued one only the last; `system`
 * messages are never stored; the reply comes last as ASSISTANT. `result` is the chat id, NULL when
 * the chat is gone. The settlement of a metered reply carries it (CreditHoldsService.settle), so
 * the charge and the saved exchange are one statement, one round trip and one commit.
 */
export function saveExchangePart(
  userId: string,
  input: Exchange,
  defaultTitle: string,
  first: number,
): StatementPart {
  const $ = (i: number) => `$${first + i}`;
  const stored = input.messages.filter((m) => m.role !== 'system');
  const toStore = input.chatId ? stored.slice(-1) : stored;
  const rows = [
    ...toStore.map((msg) => ({ role: msg.role.toUpperCase(), content: msg.content, by: userId })),
    { role: 'ASSISTANT', content: input.reply, by: null },
  ];
  const chat = input.chatId
    ? `UPDATE chats SET "updatedAt" = now() WHERE id = ${$(3)} RETURNING id`
    : `INSERT INTO chats (id, title, "userId") VALUES (${$(3)}, ${$(4)}, ${$(5)}) RETURNING id`;
  const title = Array.from(stored[0]?.content.trim() ?? '')
    .slice(0, 50)
    .join('');
  return {
    ctes: `exchange_chat AS (${chat}), exchange_messages AS (
       INSERT INTO messages ("chatId", "userId", role, content)
       SELECT exchange_chat.id, m.by, m.role, m.content
       FROM exchange_chat,
         unnest(${$(0)}::uuid[], ${$(1)}::varchar[], ${$(2)}::text[]) WITH ORDINALITY AS m(by, role, content, n)
       ORDER BY m.n
       RETURNING "chatId")`,
    result: `(SELECT "chatId" FROM exchange_messages LIMIT 1)`,
    params: [
      rows.map((r) => r.by),
      rows.map((r) => r.role),
      rows.map((r) => r.content),
      ...(input.chatId
        ? [input.chatId]
        : [input.newChatId ?? randomUUID(), title || defaultTitle, userId]),
    ],
  };
}
