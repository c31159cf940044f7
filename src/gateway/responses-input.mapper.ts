// The Responses wire IN: an OpenAI Responses request as our WireGenerateDto and the call's
// client tools and answer format (the answer OUT is responses.mapper.ts).
import type { ClientTools, ResponseFormat, ToolChoice, WireGenerateDto } from '../ai/client-tools';
import type { GenerateMessageDto } from '../ai/dto/generate.dto';
import type { MessageContent, MessagePart } from '../ai/dto/message-content';
import type { PlanOutputLimits } from '../ai/output-limits';
import { AppError, ErrorCode } from '../common/errors/app-error';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import type { ToolCall, ToolDefinition } from '../plugins/tool.types';
import { MAX_INPUT_ITEMS, MAX_TOOLS, type ResponseCreateDto } from './dto/responses.dto';

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

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const given = (v: unknown): boolean => v !== undefined && v !== null;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const invalid = (property: string, message: string) =>
  new ValidationFailedError([{ property, constraint: 'openAiWire', message }]);
const unsupported = (param: string, message: string) =>
  new AppError(ErrorCode.UNSUPPORTED_PARAMETER, message, { param });

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

type WireMessages = WireGenerateDto['messages'];

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
      const name = typeof item.call_id === 'string' ? calls.get(item.call_id) : undefined;
      if (!name)
        throw invalid(`${at}.call_id`, `${at}.call_id names no earlier function_call of the input`);
      const content = outputOf(item.output, `${at}.output`);
      messages.push({ role: 'tool', toolCallId: item.call_id as string, toolName: name, content });
      return;
    }
    throw unsupported(`${at}.type`, `input items of type ${String(type)} are not supported`);
  });
  return messages;
}

/** `tools` as ours: function tools only. */
function toolsOf(raw: unknown): ToolDefinition[] {
  if (!given(raw)) return [];
  if (!Array.isArray(raw)) throw invalid('tools', 'tools must be an array');
  if (raw.length > MAX_TOOLS) throw invalid('tools', `tools has more than ${MAX_TOOLS} items`);
  return raw.map((tool: unknown, i) => {
    if (!isObject(tool)) throw invalid(`tools[${i}]`, `tools[${i}] must be an object`);
    if (tool.type !== 'function')
      throw unsupported(`tools[${i}].type`, `tools of type ${String(tool.type)} are not supported`);
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
      throw invalid(`tools[${i}].name`, `tools[${i}].name must match ${TOOL_NAME.source}`);
    if (given(tool.description) && typeof tool.description !== 'string')
      throw invalid(`tools[${i}].description`, 'description must be a string');
    if (given(tool.parameters) && !isObject(tool.parameters))
      throw invalid(`tools[${i}].parameters`, 'parameters must be a JSON Schema object');
    return {
      name: tool.name,
      description: (tool.description as string | undefined) ?? '',
      parameters: (tool.parameters as Record<string, unknown> | undefined) ?? {
        type: 'object',
        properties: {},
      },
    };
  });
}

function toolChoiceOf(raw: unknown, tools: ToolDefinition[]): ToolChoice | undefined {
  if (!given(raw)) return undefined;
  if (raw === 'auto' || raw === 'none' || raw === 'required') return raw;
  if (isObject(raw) && raw.type === 'function' && typeof raw.name === 'string') {
    if (!tools.some((t) => t.name === raw.name))
      throw invalid('tool_choice', `tool_choice names ${raw.name}, which is not in tools`);
    return { name: raw.name };
  }
  throw unsupported('tool_choice', 'tool_choice must be auto, none, required or a function');
}

/** `text.format` as ours; `text` (the default) is none. */
export function responseFormatOf(text: unknown): ResponseFormat | undefined {
  if (!given(text)) return undefined;
  if (!isObject(text)) throw invalid('text', 'text must be an object');
  const format = text.format;
  if (!given(format)) return undefined;
  if (!isObject(format)) throw invalid('text.format', 'text.format must be an object');
  if (format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type !== 'json_schema')
    throw unsupported(
      'text.format.type',
      'text.format.type must be text, json_object or json_schema',
    );
  if (typeof format.name !== 'string' || !TOOL_NAME.test(format.name))
    throw invalid('text.format.name', `text.format.name must match ${TOOL_NAME.source}`);
  if (!isObject(format.schema))
    throw invalid('text.format.schema', 'text.format.schema must be an object');
  if (given(format.strict) && typeof format.strict !== 'boolean')
    throw invalid('text.format.strict', 'text.format.strict must be a boolean');
  return {
    type: 'json_schema',
    name: format.name,
    schema: format.schema,
    ...(given(format.strict) ? { strict: format.strict as boolean } : {}),
  };
}

/** Checks `metadata`: at most 16 string values of at most 512 characters, keys at most 64. */
function checkMetadata(metadata: unknown): void {
  if (!given(metadata)) return;
  const entries = Object.entries(metadata as Record<string, unknown>);
  if (
    entries.length > 16 ||
    entries.some(([k, v]) => k.length > 64 || typeof v !== 'string' || v.length > 512)
  )
    throw invalid(
      'metadata',
      'metadata takes up to 16 string values (keys ≤ 64, values ≤ 512 characters)',
    );
}

/** What a Responses request asks of AiService. */
export interface ResponseCall {
  dto: WireGenerateDto;
  /** The request's own input items (a string input as one user message). */
  items: InputItem[];
  clientTools?: ClientTools;
  responseFormat?: ResponseFormat;
  outputLimits: PlanOutputLimits;
}

/**
 * A Responses request as our call. `history`: the stored input and output items of the previous
 * response, put before the request's own (`historyLength` of them). Throws UNSUPPORTED_PARAMETER (400, `param` named)
 * for fields and items we cannot honour, VALIDATION_FAILED (400, `param` the path) for
 * malformed ones.
 */
export function toResponseCall(req: ResponseCreateDto, history: InputItem[] = []): ResponseCall {
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
      messages: messagesOf([...history, ...items], req.instructions, history.length),
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
