import { randomUUID } from 'node:crypto';
import { SqlParams } from '../database/sql-params';
import type { StatementPart } from '../database/statement-part';
import type { MessageTool } from './message.entity';
import type { ToolStep } from '../models/call.types';

/** An AI exchange to save (see ChatExchanges). */
export interface Exchange {
  /** Continue this chat (access already checked by the caller). */
  chatId?: string;
  /** Id for the new chat (lets a stream announce it before saving). */
  newChatId?: string;
  /**
   * The request's messages; `uploadIds`: the images a message was sent with, in order; `tool`:
   * a wire request's assistant tool calls or tool result (its `tool` column).
   */
  messages: { role: string; content: string; uploadIds?: string[]; tool?: MessageTool }[];
  /** The assistant's tool calls and the tools' results, in order (after the inputs). */
  steps?: ToolStep[];
  reply: string;
  /** The reply asked for tools (a tool-loop step): saved as its `tool` column. */
  replyTool?: MessageTool;
  /** A later step of a tool loop in `chatId`: store no input message, only steps and reply. */
  appendOnly?: boolean;
}

/**
 * Saving an exchange (spec Limits 7) as CTEs of a larger statement, its placeholders numbered
 * from `$first`: create the chat (titled with the first 50 characters of the first message, else
 * `defaultTitle`) or touch it, then insert the messages in order, so `seq` follows the
 * conversation. A new chat stores every input message, a continued one only the last; `system`
 * messages are never stored; the reply comes last as ASSISTANT. `result` is the chat id, NULL when
 * the chat is gone. The settlement of a metered reply carries it (CreditHoldsService.settleWith), so
 * the charge and the saved exchange are one statement, one round trip and one commit.
 */
export function saveExchangePart(
  userId: string,
  input: Exchange,
  defaultTitle: string,
  first: number,
): StatementPart<string | null> {
  const p = new SqlParams(first - 1);
  const stored = input.messages.filter((m) => m.role !== 'system');
  const toStore = input.appendOnly ? [] : input.chatId ? stored.slice(-1) : stored;
  const rows = [
    ...toStore.map((msg) => ({
      id: randomUUID(),
      role: msg.role.toUpperCase(),
      content: msg.content,
      by: userId as string | null,
      tool: msg.tool ? JSON.stringify(msg.tool) : null,
      uploadIds: msg.uploadIds ?? [],
    })),
    ...(input.steps ?? []).map((step) => ({
      id: randomUUID(),
      role: step.role,
      content: step.content,
      by: null,
      tool: JSON.stringify(step.tool),
      uploadIds: [] as string[],
    })),
    {
      id: randomUUID(),
      role: 'ASSISTANT',
      content: input.reply,
      by: null,
      tool: input.replyTool ? JSON.stringify(input.replyTool) : null,
      uploadIds: [],
    },
  ];
  const attachments = rows.flatMap((r) =>
    r.uploadIds.map((uploadId, position) => ({ messageId: r.id, position, uploadId })),
  );
  const title = Array.from(stored[0]?.content.trim() ?? '')
    .slice(0, 50)
    .join('');
  const chat = input.chatId
    ? `UPDATE chats SET "updatedAt" = now() WHERE id = ${p.add(input.chatId)} RETURNING id`
    : `INSERT INTO chats (id, title, "userId") VALUES (${p.add(input.newChatId ?? randomUUID())}, ${p.add(title || defaultTitle)}, ${p.add(userId)}) RETURNING id`;
  /** Array placeholders for `unnest`, each cast to its element type: `$n::uuid[], …`. */
  const arrays = (columns: [unknown[], string][]) =>
    columns.map(([values, type]) => `${p.add(values)}::${type}[]`).join(', ');
  const messageColumns = arrays([
    [rows.map((r) => r.id), 'uuid'],
    [rows.map((r) => r.by), 'uuid'],
    [rows.map((r) => r.role), 'varchar'],
    [rows.map((r) => r.content), 'text'],
    [rows.map((r) => r.tool), 'jsonb'],
  ]);
  const attachmentColumns = arrays([
    [attachments.map((a) => a.messageId), 'uuid'],
    [attachments.map((a) => a.position), 'smallint'],
    [attachments.map((a) => a.uploadId), 'uuid'],
  ]);
  return {
    // Message ids are chosen here so that attachments can name them in the same statement; an
    // attachment is written only with its message (none when the chat is gone).
    ctes: `exchange_chat AS (${chat}), exchange_messages AS (
       INSERT INTO messages (id, "chatId", "userId", role, content, tool)
       SELECT m.id, exchange_chat.id, m.by, m.role, m.content, m.tool
       FROM exchange_chat,
         unnest(${messageColumns})
           WITH ORDINALITY AS m(id, by, role, content, tool, n)
       ORDER BY m.n
       RETURNING id, "chatId"), exchange_attachments AS (
       INSERT INTO message_attachments ("messageId", position, "uploadId")
       SELECT a.mid, a.pos, a.uid
       FROM unnest(${attachmentColumns}) AS a(mid, pos, uid)
       WHERE a.mid IN (SELECT id FROM exchange_messages))`,
    result: `(SELECT "chatId" FROM exchange_messages LIMIT 1)`,
    params: p.values,
  };
}
