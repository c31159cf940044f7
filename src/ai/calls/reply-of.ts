import type { Admission, GenerateReply } from '../ai.types';
import type { FinishReason, TokenUsage, ToolCall } from '../../models/call.types';

/**
 * The answer of a settled call or tool loop, as `generate` returns it and `stream` hands it to
 * `done` (less the text): the model that answered, usage and cost charged, the chat, why it ended (`stop` for a tool loop,
 * which runs its own tools), the client tools the model called, the loop's model calls and stop
 * reason, and `skippedParameters` when admission passed over inherited ones.
 */
export function replyOf(
  a: Admission,
  r: {
    /** Catalogue id of the model that answered (a fallback's, or the last call's of a loop). */
    modelId?: string;
    text: string;
    usage: TokenUsage;
    cost: number;
    finishReason?: FinishReason;
    toolCalls?: ToolCall[];
    modelCalls?: number;
    stopReason?: 'stop' | 'max_tool_steps';
  },
): GenerateReply {
  const loop = r.modelCalls !== undefined;
  const calls = !loop && r.toolCalls?.length ? r.toolCalls : undefined;
  return {
    modelId: r.modelId ?? a.model.id,
    text: r.text,
    usage: r.usage,
    cost: r.cost,
    chatId: a.chatId,
    finishReason: loop ? 'stop' : (r.finishReason ?? (calls ? 'tool_calls' : 'stop')),
    ...(calls ? { toolCalls: calls } : {}),
    ...(loop ? { modelCalls: r.modelCalls, stopReason: r.stopReason } : {}),
    ...(a.skippedParameters.length ? { skippedParameters: a.skippedParameters } : {}),
  };
}

/** `replyOf` without the text (the stream sent it as deltas): what a sink's `done` is given. */
export function doneOf(
  a: Admission,
  r: Parameters<typeof replyOf>[1],
): Omit<GenerateReply, 'text'> {
  const done: Partial<GenerateReply> = replyOf(a, r);
  delete done.text;
  return done as Omit<GenerateReply, 'text'>;
}
