// Our request TO the Anthropic upstream (Messages API) and its tool calls back.
import type Anthropic from '@anthropic-ai/sdk';
import type { ClientTools, ResponseFormat } from '../client-tools';
import type { ProviderMessage } from '../model-provider';
import { parseToolArguments } from './tool-arguments';
import type { FinishReason, ToolCall, ToolDefinition } from '../../../models/call.types';

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam;
type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/**
 * Our messages in the Messages API's shape, without the system ones (they go to
 * `system`): images as `image` blocks with a base64 source, before the text as Anthropic
 * advises; an assistant's tool calls as `tool_use` blocks; consecutive tool results as one user
 * message of `tool_result` blocks (`is_error` when the tool failed).
 */
export function anthropicMessages(messages: ProviderMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'tool') {
      const block: ContentBlockParam = {
        type: 'tool_result',
        tool_use_id: m.toolCall?.id ?? '',
        content: m.content,
        ...(m.toolCall && !m.toolCall.ok ? { is_error: true } : {}),
      };
      const last = out[out.length - 1];
      const merge =
        last?.role === 'user' &&
        Array.isArray(last.content) &&
        last.content.every((b) => b.type === 'tool_result');
      if (merge) (last.content as ContentBlockParam[]).push(block);
      else out.push({ role: 'user', content: [block] });
      continue;
    }
    if (m.role === 'assistant') {
      if (!m.toolCalls?.length) {
        out.push({ role: 'assistant', content: m.content });
        continue;
      }
      const blocks: ContentBlockParam[] = m.content ? [{ type: 'text', text: m.content }] : [];
      for (const c of m.toolCalls)
        blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments });
      out.push({ role: 'assistant', content: blocks });
      continue;
    }
    if (m.images?.length) {
      const blocks: ContentBlockParam[] = m.images.map((image) => ({
        type: 'image',
        source: { type: 'base64', media_type: image.mediaType as ImageMediaType, data: image.data },
      }));
      if (m.content) blocks.push({ type: 'text', text: m.content });
      out.push({ role: 'user', content: blocks });
      continue;
    }
    out.push({ role: 'user', content: m.content });
  }
  return out;
}

/** Tool definitions as Anthropic tools (`input_schema`); undefined when there are none. */
export function anthropicTools(
  tools: ToolDefinition[] | undefined,
): Anthropic.Messages.Tool[] | undefined {
  if (!tools?.length) return undefined;
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.parameters as Anthropic.Messages.Tool.InputSchema,
  }));
}

/** The `tool_use` blocks of a whole reply. */
export function anthropicToolCalls(content: Anthropic.Messages.ContentBlock[]): ToolCall[] {
  return content.flatMap((b) =>
    b.type === 'tool_use'
      ? [{ id: b.id, name: b.name, arguments: (b.input ?? {}) as Record<string, unknown> }]
      : [],
  );
}

/**
 * Assembles streamed `tool_use` blocks: `content_block_start` names the call, its input arrives
 * as `input_json_delta` pieces, and `content_block_stop` completes it.
 */
export class AnthropicToolCallAssembler {
  private readonly open = new Map<number, { id: string; name: string; json: string }>();

  start(index: number, block: { type: string; id?: string; name?: string }): void {
    if (block.type === 'tool_use')
      this.open.set(index, { id: block.id ?? '', name: block.name ?? '', json: '' });
  }

  delta(index: number, partialJson: string): void {
    const call = this.open.get(index);
    if (call) call.json += partialJson;
  }

  /** The completed call of block `index`, if it was a tool_use block. */
  stop(index: number): ToolCall | undefined {
    const call = this.open.get(index);
    if (!call) return undefined;
    this.open.delete(index);
    return { id: call.id, name: call.name, arguments: parseToolArguments(call.json) };
  }
}

/**
 * The name of the tool that carries a structured answer: Anthropic has no response format, so
 * the answer is asked for as the input of one forced tool whose schema is the format's, and that
 * input is returned as the reply's text (never as a tool call).
 */
export const ANSWER_TOOL = 'json_answer';

/**
 * The client tools' rules and the answer format as Messages fields: `tool_choice` (`auto`,
 * `any` for `required`, `tool` for one name, `none`) with `disable_parallel_tool_use` when the
 * client wants one call at most; a format adds the answer tool (see ANSWER_TOOL), forced unless
 * the client's tools are offered too (then the model picks). With extended thinking (`thinking`)
 * a forced choice is sent as `auto`, the only forcing-free choice besides `none` that thinking
 * allows. Nothing when neither is asked.
 */
export function anthropicClientToolFields(
  tools: ToolDefinition[] | undefined,
  clientTools: ClientTools | undefined,
  format: ResponseFormat | undefined,
  thinking = false,
): { tools?: Anthropic.Messages.ToolUnion[]; tool_choice?: Anthropic.Messages.ToolChoice } {
  const answer = format
    ? {
        name: ANSWER_TOOL,
        description:
          format.type === 'json_schema'
            ? `Give your answer (${format.name}) as this tool's input.`
            : "Give your answer, a JSON object, as this tool's input.",
        input_schema: (format.type === 'json_schema'
          ? format.schema
          : { type: 'object', additionalProperties: true }) as Anthropic.Messages.Tool.InputSchema,
      }
    : undefined;
  const offered = [...(anthropicTools(tools) ?? []), ...(answer ? [answer] : [])];
  if (!offered.length) return {};
  const single =
    clientTools?.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  const choice = clientTools?.toolChoice ?? 'auto';
  let tool_choice: Anthropic.Messages.ToolChoice;
  if (answer && !clientTools) tool_choice = { type: 'tool', name: ANSWER_TOOL };
  else if (choice === 'none') tool_choice = { type: 'none' };
  else if (choice === 'required') tool_choice = { type: 'any', ...single };
  else if (typeof choice === 'object') tool_choice = { type: 'tool', name: choice.name, ...single };
  else tool_choice = { type: 'auto', ...single };
  // Extended thinking takes only `auto` and `none`: a forced choice becomes `auto`.
  if (thinking && (tool_choice.type === 'any' || tool_choice.type === 'tool'))
    tool_choice = { type: 'auto', ...single };
  return { tools: offered, tool_choice };
}

/** Anthropic's `stop_reason` in our terms; a call of the answer tool alone is a `stop`. */
export function anthropicFinishReason(
  reason: string | null | undefined,
  clientCalls: number,
): FinishReason {
  if (reason === 'max_tokens') return 'length';
  return reason === 'tool_use' && clientCalls > 0 ? 'tool_calls' : 'stop';
}
