import type { ChatExchanges } from '../../chats/chat-exchanges.service';
import type { StatementPart } from '../../database/statement-part';
import type { Admission, Outcome } from '../ai.types';
import type { TokenUsage } from '../../models/call.types';

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

/**
 * The saved exchange followed by the protocol's record of the reply (`record`, when given), as
 * one part of the settlement statement: the record's placeholders follow the exchange's, it reads
 * the saved chat's id from the exchange's result, and the part's result stays the chat id.
 */
export function savePart(
  exchanges: ChatExchanges,
  a: Admission,
  outcome: Outcome,
  record?: (first: number, chatId: string) => StatementPart,
): (first: number) => StatementPart<string | null> {
  return (first) => {
    const exchange = exchangePart(exchanges, a, outcome, first);
    if (!record) return exchange;
    const own = record(first + exchange.params.length, exchange.result);
    return {
      ctes: `${exchange.ctes}, ${own.ctes}`,
      params: [...exchange.params, ...own.params],
      result: exchange.result,
    };
  };
}

/**
 * The protocol's record of a settled call (`a.record`, see RecordPart), for a whole reply only:
 * none for a cut one, nor for a plugins' tool loop (whose steps are settled one by one).
 */
export function recordOf(
  a: Admission,
  outcome: Outcome,
  settled: { modelId: string; usage: TokenUsage; cost: number },
): ((first: number, chatId: string) => StatementPart) | undefined {
  if (!a.record || a.toolBox || outcome.cut) return undefined;
  const toolCalls = outcome.toolCalls ?? [];
  const finishReason = outcome.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop');
  return a.record({ ...settled, text: outcome.text, toolCalls, finishReason });
}
