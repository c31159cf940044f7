// The Responses wire IN: an OpenAI Responses request as our CallRequest and the call's
// client tools and answer format (the answer OUT is responses.mapper.ts).
import type { ClientTools, ResponseFormat, GenerateMessageDto, PlanOutputLimits } from '../ai';
import { MAX_INPUT_ITEMS, type ResponseCreateDto } from './dto/responses.dto';
import {
  checkMetadata,
  given,
  invalid,
  isObject,
  responseFormatOf,
  TOOL_NAME,
  toolChoiceOf,
  toolsOf,
  unsupported,
} from './responses-options.mapper';
import type { CallRequest, MessageContent, MessagePart, ToolCall } from '../models/call.types';

/** An input item as stored with a response and replayed by `previous_response_id`. */
export type InputItem = Record<string, unknown>;

/** Fields of OpenAI's Responses API we cannot honour, and the value each may take to mean "not used". */
const UNSUPPORTED: Record<string, (v: unknown) => boolean> = {
  background: (v) => v === false,
  n: (v) => v === 1,
  include: (v) => Array.isArray(v) && v.length === 0,
  reasoning: () => false,
  conversation: () => false,
  prompt: () => false,
  truncation: (v) => v === 'disabled',
  max_tool_calls: () => false,
  top_logprobs: (v) => v === 0,
  service_tier: (v) => v === 'auto' || v === 'default',
  stream_options: () => false,
  context_management: () => false,
  prompt_cache_retention: () => false,
};

/** `input` as items: a string is one user message. */
export function inputItems(input: unknown): InputItem[] {
  if (typeof input === 'string') {
    if (!input.length) throw invalid('input', 'input must not be empty');
    return [{ type: 'message', role: 'user', content: input }];
  }
  if (!Array.isArray(input) || input.length === 0)
    throw invalid('input', 'input must be a non-empty string or a non-empty array of items');
  if (input.length > MAX_INPUT_ITEMS)
    throw invalid('input', `input has more than ${MAX_INPUT_ITEMS} items`);
  input.forEach((item, i) => {
    if (!isObject(item)) throw invalid(`input[${i}]`, `input[${i}] must be an object`);
  });
  return input as InputItem[];
}

/** A message's content as ours: strings stay; text parts join, images keep their URL. */
function contentOf(content: unknown, at: string): MessageContent {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalid(at, `${at} must be a string or an array of parts`);
  const parts: MessagePart[] = [];
  content.forEach((part: Record<string, unknown> | null, i) => {
    const type = part?.type;
    if (type === 'input_image') {
      if (typeof part?.image_url !== 'string')
        throw unsupported(
          `${at}[${i}].image_url`,
          'input_image needs image_url (a data URL or the URL of an upload); file_id is not supported',
        );
      parts.push({ type: 'image', url: part.image_url });
      return;
    }
    if (type !== 'input_text' && type !== 'output_text')
      throw unsupported(
        `${at}[${i}].type`,
        `${at}[${i}]: only input_text, output_text and input_image parts are supported`,
      );
    if (typeof part?.text !== 'string') throw invalid(`${at}[${i}].text`, 'text must be a string');
    const last = parts.at(-1);
    if (last?.type === 'text') last.text += part.text;
    else if (part.text) parts.push({ type: 'text', text: part.text });
  });
  return parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts;
}

function argumentsOf(raw: unknown, at: string): Record<string, unknown> {
  if (typeof raw !== 'string') throw invalid(at, `${at} must be a JSON string`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw || '{}');
  } catch {
    throw invalid(at, `${at} is not valid JSON`);
  }
  if (!isObject(parsed)) throw invalid(at, `${at} must be a JSON object`);
  return parsed;
}

function outputOf(raw: unknown, at: string): string {
  if (typeof raw === 'string') return raw;
  if (Array.isArray(raw) && raw.every((p) => isObject(p) && typeof p.text === 'string'))
    return raw.map((p) => (p as { text: string }).text).join('');
  throw invalid(at, `${at} must be a string or text parts`);
}

type WireMessages = CallRequest['messages'];

/**
 * Input items as our messages, in order. `function_call` items join the assistant turn before
 * them (one turn per run of calls); a `function_call_output` names its call's tool by
 * `call_id`. Throws VALIDATION_FAILED (400, `param` the item's path) for a malformed item,
 * an empty message or an output without its call, UNSUPPORTED_PARAMETER (400) for item and
 * part types we cannot take (`item_reference`, `reasoning`, files…).
 */
export function messagesOf(
  items: InputItem[],
  instructions?: string,
  historyLength = 0,
  historyUnknown = false,
): WireMessages {
  const messages: WireMessages = instructions ? [{ role: 'system', content: instructions }] : [];
  const calls = new Map<string, string>();
  items.forEach((item, n) => {
    const i = n - historyLength;
    const at = i < 0 ? `previous_response_id` : `input[${i}]`;
    const type = item.type ?? 'message';
    if (type === 'message') {
      const role = item.role;
      if (role !== 'user' && role !== 'system' && role !== 'developer' && role !== 'assistant')
        throw invalid(`${at}.role`, `${at}.role must be user, system, developer or assistant`);
      const content = contentOf(item.content, `${at}.content`);
      if (!content.length) throw invalid(`${at}.content`, `${at}.content is empty`);
      const ours = role === 'developer' ? 'system' : role;
      messages.push({ role: ours, content } as GenerateMessageDto);
      return;
    }
    if (type === 'function_call') {
      if (typeof item.call_id !== 'string' || !item.call_id)
        throw invalid(`${at}.call_id`, `${at}.call_id must be a non-empty string`);
      if (typeof item.name !== 'string' || !TOOL_NAME.test(item.name))
        throw invalid(`${at}.name`, `${at}.name must match ${TOOL_NAME.source}`);
      const call: ToolCall = {
        id: item.call_id,
        name: item.name,
        arguments: argumentsOf(item.arguments, `${at}.arguments`),
      };
      calls.set(call.id, call.name);
      const last = messages.at(-1);
      if (last?.role === 'assistant' && 'toolCalls' in last) last.toolCalls.push(call);
      else if (last?.role === 'assistant')
        messages[messages.length - 1] = { ...last, toolCalls: [call] };
      else messages.push({ role: 'assistant', content: '', toolCalls: [call] });
      return;
    }
    if (type === 'function_call_output') {
      if (typeof item.call_id !== 'string' || !item.call_id)
        throw invalid(`${at}.call_id`, `${at}.call_id must be a non-empty string`);
      const name = calls.get(item.call_id) ?? (historyUnknown ? '' : undefined);
      if (name === undefined)
        throw invalid(`${at}.call_id`, `${at}.call_id names no earlier function_call of the input`);
      const content = outputOf(item.output, `${at}.output`);
      messages.push({ role: 'tool', toolCallId: item.call_id, toolName: name, content });
      return;
    }
    throw unsupported(`${at}.type`, `input items of type ${String(type)} are not supported`);
  });
  return messages;
}

/** What a Responses request asks of AiService. */
export interface ResponseCall {
  dto: CallRequest;
  /** The request's own input items (a string input as one user message). */
  items: InputItem[];
  clientTools?: ClientTools;
  responseFormat?: ResponseFormat;
  outputLimits: PlanOutputLimits;
}

/**
 * A Responses request as our call. `history`: the stored input and output items of the previous
 * response, put before the request's own; `'unread'` checks the request alone before the
 * previous response is read (a `function_call_output` may then answer a call of it). Throws UNSUPPORTED_PARAMETER (400, `param` named)
 * for fields and items we cannot honour, VALIDATION_FAILED (400, `param` the path) for
 * malformed ones.
 */
export function toResponseCall(
  req: ResponseCreateDto,
  history: InputItem[] | 'unread' = [],
): ResponseCall {
  const previous = history === 'unread' ? [] : history;
  for (const [field, harmless] of Object.entries(UNSUPPORTED)) {
    const value = (req as unknown as Record<string, unknown>)[field];
    if (given(value) && !harmless(value)) throw unsupported(field, `${field} is not supported`);
  }
  checkMetadata(req.metadata);
  const items = inputItems(req.input);
  const tools = toolsOf(req.tools);
  const toolChoice = toolChoiceOf(req.tool_choice, tools);
  if (!tools.length && toolChoice && toolChoice !== 'none' && toolChoice !== 'auto')
    throw invalid('tool_choice', 'tool_choice requires tools');
  const clientTools: ClientTools | undefined = tools.length
    ? {
        tools,
        ...(toolChoice ? { toolChoice } : {}),
        ...(given(req.parallel_tool_calls) ? { parallelToolCalls: req.parallel_tool_calls } : {}),
      }
    : undefined;
  const responseFormat = responseFormatOf(req.text);
  return {
    dto: {
      modelId: req.model,
      messages: messagesOf(
        [...previous, ...items],
        req.instructions,
        previous.length,
        history === 'unread',
      ),
      maxTokens: req.max_output_tokens ?? undefined,
      temperature: req.temperature ?? undefined,
      topP: req.top_p ?? undefined,
    },
    items,
    ...(clientTools ? { clientTools } : {}),
    ...(responseFormat ? { responseFormat } : {}),
    outputLimits: { by: 'plan', param: 'max_output_tokens' },
  };
}
