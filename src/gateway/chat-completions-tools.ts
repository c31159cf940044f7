// Tools and answer formats of the Chat Completions wire, as the gateway takes them from
// clients (`tools`, `tool_choice`, `parallel_tool_calls`, `response_format`, assistant
// `tool_calls` and `tool` messages) and gives the model's calls back (`tool_calls`).
import { type ClientTools, type ResponseFormat, type ToolChoice, parseToolArguments } from '../ai';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import type { ChatCompletionRequestDto } from './dto/chat-completion.dto';
import { type CompletionToolCallDto, TOOL_NAME } from './dto/completion-tools.dto';
import type { ToolCall, WireMessage } from '../models/call.types';

const invalid = (property: string, message: string) =>
  new ValidationFailedError([{ property, constraint: 'openAiWire', message }]);

const given = (v: unknown): boolean => v !== undefined && v !== null;

/** An empty arguments object: the schema of a function sent without `parameters`. */
const NO_PARAMETERS = { type: 'object', properties: {} };

/**
 * `tool_choice` as ours. Throws VALIDATION_FAILED (400, `param: tool_choice`) for anything but
 * `auto`, `none`, `required` or `{type: "function", function: {name}}` naming a sent tool.
 */
function toolChoiceOf(value: unknown, names: Set<string>): ToolChoice | undefined {
  if (!given(value)) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  const named = value as { type?: unknown; function?: { name?: unknown } };
  const name = named?.type === 'function' ? named.function?.name : undefined;
  if (typeof name !== 'string')
    throw invalid(
      'tool_choice',
      'tool_choice must be auto, none, required or {type: "function", function: {name}}',
    );
  if (!names.has(name))
    throw invalid('tool_choice', `tool_choice names ${name}, which is not in tools`);
  return { name };
}

/**
 * The request's client tools: `tools` (functions), `tool_choice`, `parallel_tool_calls`;
 * undefined without tools (then `tool_choice` may only be `none` or `auto`). Throws
 * VALIDATION_FAILED (400) for a choice naming no sent tool, two tools of one name, or
 * `tool_choice`/`parallel_tool_calls` that make no sense without tools.
 */
export function clientToolsOf(req: ChatCompletionRequestDto): ClientTools | undefined {
  const tools = req.tools ?? [];
  const names = new Set(tools.map((t) => t.function.name));
  if (names.size !== tools.length) throw invalid('tools', 'tools must have distinct names');
  if (given(req.parallel_tool_calls) && typeof req.parallel_tool_calls !== 'boolean')
    throw invalid('parallel_tool_calls', 'parallel_tool_calls must be a boolean');
  if (!tools.length) {
    if (given(req.tool_choice) && req.tool_choice !== 'none' && req.tool_choice !== 'auto')
      throw invalid('tool_choice', 'tool_choice needs tools');
    return undefined;
  }
  const toolChoice = toolChoiceOf(req.tool_choice, names);
  return {
    tools: tools.map((t) => ({
      name: t.function.name,
      description: t.function.description ?? '',
      parameters: t.function.parameters ?? NO_PARAMETERS,
    })),
    ...(toolChoice ? { toolChoice } : {}),
    ...(typeof req.parallel_tool_calls === 'boolean'
      ? { parallelToolCalls: req.parallel_tool_calls }
      : {}),
  };
}

/**
 * `response_format` as ours: `text` (or none) is undefined, `json_object`, or `json_schema` with
 * its name, schema (an empty object schema when left out) and `strict`. Throws
 * VALIDATION_FAILED (400, `param` inside `response_format`) for another shape.
 */
export function responseFormatOf(req: ChatCompletionRequestDto): ResponseFormat | undefined {
  const format = req.response_format as
    | { type?: unknown; json_schema?: { name?: unknown; schema?: unknown; strict?: unknown } }
    | null
    | undefined;
  if (!given(format) || format?.type === 'text') return undefined;
  if (format?.type === 'json_object') return { type: 'json_object' };
  if (format?.type !== 'json_schema')
    throw invalid(
      'response_format.type',
      'response_format.type must be text, json_object or json_schema',
    );
  const spec = format.json_schema;
  if (typeof spec?.name !== 'string' || !TOOL_NAME.test(spec.name))
    throw invalid(
      'response_format.json_schema.name',
      'response_format.json_schema.name must match ^[a-zA-Z0-9_-]{1,64}$',
    );
  const schema = spec.schema ?? NO_PARAMETERS;
  if (typeof schema !== 'object' || Array.isArray(schema))
    throw invalid('response_format.json_schema.schema', 'json_schema.schema must be an object');
  if (given(spec.strict) && typeof spec.strict !== 'boolean')
    throw invalid('response_format.json_schema.strict', 'json_schema.strict must be a boolean');
  return {
    type: 'json_schema',
    name: spec.name,
    schema: schema as Record<string, unknown>,
    ...(typeof spec.strict === 'boolean' ? { strict: spec.strict } : {}),
  };
}

/** An assistant message's `tool_calls` as ours (arguments parsed from their JSON text). */
export function assistantToolCalls(
  text: string,
  calls: CompletionToolCallDto[],
): Extract<WireMessage, { role: 'assistant' }> {
  return {
    role: 'assistant',
    content: text,
    toolCalls: calls.map((c) => ({
      id: c.id,
      name: c.function.name,
      arguments: parseToolArguments(c.function.arguments),
    })),
  };
}

/**
 * A `tool` message as ours: the call it answers is looked up among the earlier assistant
 * messages' calls (its name is needed by Gemini). Throws VALIDATION_FAILED (400) when
 * `tool_call_id` is missing or names no earlier call.
 */
export function toolResult(
  at: string,
  id: unknown,
  text: string,
  earlier: Map<string, ToolCall>,
): WireMessage {
  if (typeof id !== 'string' || !id)
    throw invalid(`${at}.tool_call_id`, 'tool_call_id is required');
  const call = earlier.get(id);
  if (!call)
    throw invalid(
      `${at}.tool_call_id`,
      `tool_call_id ${id} answers no earlier assistant tool call`,
    );
  return { role: 'tool', toolCallId: id, toolName: call.name, content: text };
}

/** The model's calls as OpenAI `tool_calls` (arguments as JSON text). */
export function toolCallsOut(calls: ToolCall[]): CompletionToolCallDto[] {
  return calls.map((c) => ({
    id: c.id,
    type: 'function' as const,
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));
}
