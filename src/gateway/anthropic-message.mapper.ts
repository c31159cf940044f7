// The Anthropic Messages wire OUT: our result as Anthropic's `message` object (the request IN is
// anthropic-messages.mapper.ts).
import { randomUUID } from 'node:crypto';
import type {
  AnthropicContentBlock,
  AnthropicMessageOutDto,
  AnthropicUsageDto,
  StopReason,
} from './dto/message.dto';
import type { FinishReason, TokenUsage, ToolCall } from '../models/call.types';

/** A message id in Anthropic's style: `msg_` and the generation id's 32 hex digits. */
export const messageId = (generationId: string = randomUUID()) =>
  `msg_${generationId.replaceAll('-', '')}`;

/** Our finish reason as Anthropic's `stop_reason`. */
export function stopReasonOf(reason: FinishReason): StopReason {
  if (reason === 'length') return 'max_tokens';
  if (reason === 'tool_calls') return 'tool_use';
  return 'end_turn';
}

/**
 * Anthropic's usage object for ours. As Anthropic counts them, `input_tokens` are the prompt
 * tokens neither read from nor written to the cache, and the cache fields (present when the
 * provider reported them) carry the rest.
 */
export function anthropicUsageOf(u: TokenUsage): AnthropicUsageDto {
  const read = u.cachedTokens ?? 0;
  const written = u.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, u.promptTokens - read - written),
    output_tokens: u.completionTokens,
    ...(u.cachedTokens !== undefined ? { cache_read_input_tokens: u.cachedTokens } : {}),
    ...(u.cacheWriteTokens !== undefined
      ? { cache_creation_input_tokens: u.cacheWriteTokens }
      : {}),
  };
}

/** A tool call as a `tool_use` block. */
export const toolUseOf = (call: ToolCall): AnthropicContentBlock => ({
  type: 'tool_use',
  id: call.id,
  name: call.name,
  input: call.arguments,
});

/** What a whole answer is made of: the reply's text, its tool calls, why it ended, usage, cost. */
export interface MessageResult {
  text: string;
  toolCalls?: ToolCall[];
  finishReason: FinishReason;
  usage: TokenUsage;
  cost: number;
}

/**
 * The whole `message` answer: a `text` block when there is text, then one `tool_use` block per
 * tool call, in order; `stop_sequence` is always null (a stop sequence reads `end_turn`).
 */
export function anthropicMessageOf(
  model: string,
  r: MessageResult,
  generationId?: string,
): AnthropicMessageOutDto {
  return {
    id: messageId(generationId),
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...(r.text ? [{ type: 'text' as const, text: r.text }] : []),
      ...(r.toolCalls ?? []).map(toolUseOf),
    ],
    stop_reason: stopReasonOf(r.finishReason),
    stop_sequence: null,
    usage: anthropicUsageOf(r.usage),
    cost: r.cost,
  };
}
