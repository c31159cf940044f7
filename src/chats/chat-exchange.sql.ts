import { randomUUID } from 'node:crypto';

/** An AI exchange to save (see ChatsService.saveExchange). */
export interface Exchange {
  /** Continue this chat (access already checked by the caller). */
  chatId?: string;
  /** Id for the new chat (lets a stream announce it before saving). */
  newChatId?: string;
  messages: { role: string; content: string }[];
  reply: string;
}

/**
 * The one statement (atomic, one round trip) saving an exchange (spec Limits 7): create the chat
 * (titled with the first 50 characters of the first message, else `defaultTitle`) or touch it,
 * then insert the messages in order, so `seq` follows the conversation. A new chat stores every
 * input message, a continued one only the last; `system` messages are never stored; the reply
 * comes last as ASSISTANT. Returns `{chatId}` rows (none when the chat is gone).
 */
export function saveExchangeSql(
  userId: string,
  input: Exchange,
  defaultTitle: string,
): { sql: string; params: unknown[] } {
  const stored = input.messages.filter((m) => m.role !== 'system');
  const toStore = input.chatId ? stored.slice(-1) : stored;
  const rows = [
    ...toStore.map((msg) => ({ role: msg.role.toUpperCase(), content: msg.content, by: userId })),
    { role: 'ASSISTANT', content: input.reply, by: null },
  ];
  const chat = input.chatId
    ? `UPDATE chats SET "updatedAt" = now() WHERE id = $4 RETURNING id`
    : `INSERT INTO chats (id, title, "userId") VALUES ($4, $5, $6) RETURNING id`;
  const title = Array.from(stored[0]?.content.trim() ?? '')
    .slice(0, 50)
    .join('');
  return {
    sql: `WITH chat AS (${chat})
       INSERT INTO messages ("chatId", "userId", role, content)
       SELECT chat.id, m.by, m.role, m.content
       FROM chat, unnest($1::uuid[], $2::varchar[], $3::text[]) WITH ORDINALITY AS m(by, role, content, n)
       ORDER BY m.n
       RETURNING "chatId"`,
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
