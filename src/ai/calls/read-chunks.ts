import type { StreamChunk } from '../providers/model-provider';
import type { FinishReason, TokenUsage, ToolCall } from '../../models/call.types';

/** What a streamed model call tells its caller as it goes (AiService.streamAdmitted). */
export interface StreamHooks {
  /** The first chunk is in hand; `modelId`: the catalogue id of the model answering. */
  onStart?: (modelId: string) => void;
  onText?: (delta: string) => void;
  onToolCall?: (call: ToolCall) => void;
}

/** A provider stream read to its end, or to the error that cut it. */
export interface ReadReply {
  text: string;
  /** The last usage reported; undefined when none came before the end or the cut. */
  usage?: TokenUsage;
  toolCalls: ToolCall[];
  finish?: FinishReason;
  /** What cut the stream (as thrown by the provider adapter); absent when it ended. */
  cut?: { error: unknown };
}

/**
 * Reads a provider stream from its `first` chunk on: text to `hooks.onText`, each whole tool call
 * to `hooks.onToolCall`, keeping the last usage and finish reason. Never throws: an error of the
 * iterator ends the reading as `cut`.
 */
export async function readChunks(
  first: IteratorResult<StreamChunk>,
  iterator: AsyncIterator<StreamChunk>,
  hooks: StreamHooks,
): Promise<ReadReply> {
  const reply: ReadReply = { text: '', toolCalls: [] };
  try {
    for (let r = first; !r.done; r = await iterator.next()) {
      if (r.value.usage) reply.usage = r.value.usage;
      if (r.value.finishReason) reply.finish = r.value.finishReason;
      if (r.value.toolCall) {
        reply.toolCalls.push(r.value.toolCall);
        hooks.onToolCall?.(r.value.toolCall);
      }
      if (r.value.text) {
        reply.text += r.value.text;
        hooks.onText?.(r.value.text);
      }
    }
  } catch (error) {
    reply.cut = { error };
  }
  return reply;
}
