import type { ChatExchanges } from '../chats/chat-exchanges.service';
import type { Admission, Outcome } from './ai.types';

/**
 * The saved exchange of one call, as the chats module writes it inside the settlement statement
 * (`first`: the first placeholder number it may use): a new chat with every input message, or
 * the last one of a continued chat; in a later step of a tool loop, the previous tools' results
 * instead. The reply carries the tool calls it asked for.
 */
export function exchangePart(
  exchanges: ChatExchanges,
  a: Admission,
  outcome: Outcome,
  first: number,
) {
  const calls = outcome.toolCalls ?? [];
  return exchanges.part(
    a.user,
    {
      chatId: a.isNewChat ? undefined : a.chatId,
      newChatId: a.isNewChat ? a.chatId : undefined,
      messages: a.inputs.map((m) => ({
        ...m,
        tool: m.toolCall ?? (m.toolCalls ? { calls: m.toolCalls } : undefined),
      })),
      steps: a.continuation?.steps,
      appendOnly: !!a.continuation,
      reply: outcome.text,
      replyTool: calls.length ? { calls } : undefined,
    },
    first,
  );
}
