// Our request TO the OpenAI upstream (Chat Completions) and its tool calls back; the gateway
// serving clients on that wire is gateway/chat-completions.mapper.ts.
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ClientTools, ResponseFormat } from '../client-tools';
import type { ProviderMessage } from '../model-provider';
import { parseToolArguments } from './tool-arguments';
import type { FinishReason, ToolCall, ToolDefinition } from '../../../models/call.types';

/**
 * Our messages in OpenAI's Chat Completions shape: images as `image_url` parts with a
 * base64 data URL after the text; an assistant's tool calls as `tool_calls` (arguments as JSON
 * text); a tool's result as a `tool` message naming its `tool_call_id`.
 */
export function openAiMessages(messages: ProviderMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    if (m.role === 'tool')
      return { role: 'tool', tool_call_id: m.toolCall?.id ?? '', content: m.content };
    if (m.role === 'assistant')
      return m.toolCalls?.length
        ? {
            role: 'assistant',
            content: m.content || null,
            tool_calls: m.toolCalls.map((c) => ({
              id: c.id,
              type: 'function' as const,
              function: { name: c.name, arguments: JSON.stringify(c.arguments) },
            })),
          }
        : { role: 'assistant', content: m.content };
    if (m.role === 'user' && m.images?.length) {
      const parts: ChatCompletionContentPart[] = m.content
        ? [{ type: 'text', text: m.content }]
        : [];
      for (const image of m.images)
        parts.push({
          type: 'image_url',
          image_url: { url: `data:${image.mediaType};base64,${image.data}` },
        });
      return { role: 'user', content: parts };
    }
    return { role: m.role, content: m.content };
  });
}

/** Tool definitions as OpenAI `function` tools; undefined when there are none. */
export function openAiTools(tools: ToolDefinition[] | undefined): ChatCompletionTool[] | undefined {
  if (!tools?.length) return undefined;
  return tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** Tool calls of a whole reply (`message.tool_calls`, function calls only). */
export function openAiToolCalls(
  calls: { id: string; type: string; function?: { name: string; arguments: string } }[] | undefined,
): ToolCall[] {
  return (calls ?? []).flatMap((c) =>
    c.type === 'function' && c.function
      ? [{ id: c.id, name: c.function.name, arguments: parseToolArguments(c.function.arguments) }]
      : [],
  );
}

/**
 * Assembles streamed tool calls: OpenAI sends each call's id and name in its first delta and
 * its arguments as JSON text across later deltas, keyed by `index`.
 */
export class OpenAiToolCallAssembler {
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();

  add(
    deltas:
      | { index: number; id?: string; function?: { name?: string; arguments?: string } }[]
      | undefined,
  ): void {
    for (const d of deltas ?? []) {
      const call = this.calls.get(d.index) ?? { id: '', name: '', args: '' };
      if (d.id) call.id = d.id;
      if (d.function?.name) call.name += d.function.name;
      if (d.function?.arguments) call.args += d.function.arguments;
      this.calls.set(d.index, call);
    }
  }

  /** The calls in index order. */
  done(): ToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ id: c.id, name: c.name, arguments: parseToolArguments(c.args) }));
  }
}

/**
 * The client tools' rules and the answer format as Chat Completions fields: `tool_choice`
 * (`auto`, `none`, `required`, or `{type: "function", function: {name}}`), `parallel_tool_calls`
 * (only when the client set it) and `response_format` (`json_object`, or `json_schema` with its
 * name, schema and `strict`). Nothing when neither is asked.
 */
export function openAiClientToolFields(
  clientTools: ClientTools | undefined,
  format: ResponseFormat | undefined,
) {
  const choice = clientTools?.toolChoice;
  return {
    ...(choice
      ? {
          tool_choice:
            typeof choice === 'string'
              ? choice
              : { type: 'function' as const, function: { name: choice.name } },
        }
      : {}),
    ...(clientTools?.parallelToolCalls !== undefined
      ? { parallel_tool_calls: clientTools.parallelToolCalls }
      : {}),
    ...(format
      ? {
          response_format:
            format.type === 'json_object'
              ? { type: 'json_object' as const }
              : {
                  type: 'json_schema' as const,
                  json_schema: {
                    name: format.name,
                    schema: format.schema,
                    ...(format.strict !== undefined ? { strict: format.strict } : {}),
                  },
                },
        }
      : {}),
  };
}

/** OpenAI's `finish_reason` in our terms (`content_filter` and the rest end the reply: `stop`). */
export function openAiFinishReason(reason: string | null | undefined): FinishReason {
  if (reason === 'tool_calls' || reason === 'function_call') return 'tool_calls';
  return reason === 'length' ? 'length' : 'stop';
}
