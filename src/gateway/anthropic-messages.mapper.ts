// The Anthropic Messages wire as the gateway serves it to clients: an Anthropic request IN to our
// CallRequest and client tools (the answer OUT is anthropic-message.mapper.ts; the upstream
// direction is ai/providers/anthropic.provider.ts).
import type { ClientTools, ToolChoice, GenerateMessageDto, PlanOutputLimits } from '../ai';
import { AppError } from '../common/errors/app-error';
import { ModelsErrorCode } from '../models/models.errors';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import { MAX_STOP_LENGTH, MAX_STOP_SEQUENCES } from '../models/dto/model-parameters.dto';
import type { CountTokensRequestDto, MessagesRequestDto } from './dto/messages-request.dto';
import type {
  CallRequest,
  MessagePart,
  ToolCall,
  ToolDefinition,
  WireMessage,
} from '../models/call.types';

type Block = Record<string, unknown> & { type?: unknown };

const invalid = (property: string, message: string) =>
  new ValidationFailedError([{ property, constraint: 'anthropicWire', message }]);

const unsupported = (param: string, message: string) =>
  new AppError(ModelsErrorCode.UNSUPPORTED_PARAMETER, message, { param });

/** Tool names all three providers accept. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Blocks of earlier turns that carry the model's reasoning: not sent again. */
const DROPPED_BLOCKS = new Set(['thinking', 'redacted_thinking']);

/** The output limits of a message: the caller's plan, a refusal naming `max_tokens`. */
export const MESSAGES_OUTPUT_LIMITS: PlanOutputLimits = { by: 'plan', param: 'max_tokens' };

/** Text of a string or of text blocks (`system`, a `tool_result`'s `content`), joined. */
function textOf(value: unknown, at: string): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) throw invalid(at, `${at} must be a string or an array of text blocks`);
  return value
    .map((block: Block, i) => {
      if (block?.type !== 'text')
        throw unsupported(`${at}[${i}].type`, `${at}[${i}]: only text blocks are supported here`);
      if (typeof block.text !== 'string')
        throw invalid(`${at}[${i}].text`, 'text must be a string');
      return block.text;
    })
    .join('');
}

/** An `image` block as our image part: inline base64 as a data URL, or the URL of an upload. */
function imageOf(block: Block, at: string): MessagePart {
  const source = (block.source ?? {}) as Record<string, unknown>;
  if (
    source.type === 'base64' &&
    typeof source.media_type === 'string' &&
    typeof source.data === 'string'
  )
    return { type: 'image', url: `data:${source.media_type};base64,${source.data}` };
  if (source.type === 'url' && typeof source.url === 'string')
    return { type: 'image', url: source.url };
  throw invalid(
    `${at}.source`,
    'source must be {type: "base64", media_type, data} or {type: "url", url}',
  );
}

/** A `tool_use` block as our tool call. */
function toolCallOf(block: Block, at: string): ToolCall {
  if (typeof block.id !== 'string' || !block.id) throw invalid(`${at}.id`, 'id must be a string');
  if (typeof block.name !== 'string' || !block.name)
    throw invalid(`${at}.name`, 'name must be a string');
  const input = block.input;
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalid(`${at}.input`, 'input must be an object');
  return { id: block.id, name: block.name, arguments: input as Record<string, unknown> };
}

/** Appends text to parts, joining adjacent text. */
function pushText(parts: MessagePart[], text: string): void {
  const last = parts.at(-1);
  if (last?.type === 'text') last.text += text;
  else if (text) parts.push({ type: 'text', text });
}

const contentOf = (parts: MessagePart[]) =>
  parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts;

/**
 * One Anthropic message as ours: a user turn's `tool_result` blocks become tool messages (before
 * its other content, as Anthropic orders them), an assistant turn's `tool_use` blocks its tool
 * calls. `calls` maps the tool call ids seen so far to their tool names.
 */
function messagesOf(
  role: 'user' | 'assistant',
  content: unknown,
  at: string,
  calls: Map<string, string>,
): (GenerateMessageDto | WireMessage)[] {
  if (typeof content === 'string') {
    if (!content) throw invalid(at, `${at} is empty`);
    return [{ role, content }];
  }
  if (!Array.isArray(content)) throw invalid(at, `${at} must be a string or an array of blocks`);
  const parts: MessagePart[] = [];
  const results: WireMessage[] = [];
  const toolCalls: ToolCall[] = [];
  content.forEach((block: Block, i) => {
    const here = `${at}[${i}]`;
    const type = block?.type;
    if (type === 'text') {
      if (typeof block.text !== 'string') throw invalid(`${here}.text`, 'text must be a string');
      pushText(parts, block.text);
    } else if (type === 'image' && role === 'user') {
      parts.push(imageOf(block, here));
    } else if (type === 'tool_use' && role === 'assistant') {
      const call = toolCallOf(block, here);
      calls.set(call.id, call.name);
      toolCalls.push(call);
    } else if (type === 'tool_result' && role === 'user') {
      const id = block.tool_use_id;
      if (typeof id !== 'string' || !calls.has(id))
        throw invalid(
          `${here}.tool_use_id`,
          'tool_use_id must name a tool_use of an earlier assistant turn',
        );
      results.push({
        role: 'tool',
        toolCallId: id,
        toolName: calls.get(id)!,
        content: block.content === undefined ? '' : textOf(block.content, `${here}.content`),
        ...(block.is_error === true ? { isError: true } : {}),
      });
    } else if (typeof type !== 'string' || !DROPPED_BLOCKS.has(type) || role !== 'assistant') {
      throw unsupported(
        `${here}.type`,
        `${here}: a ${role} turn cannot hold ${String(type)} blocks here`,
      );
    }
  });
  const out: (GenerateMessageDto | WireMessage)[] = [...results];
  if (toolCalls.length)
    out.push({ role: 'assistant', content: parts.length ? contentOf(parts) : '', toolCalls });
  else if (parts.length) out.push({ role, content: contentOf(parts) });
  else if (!results.length && role === 'user') throw invalid(at, `${at} is empty`);
  return out;
}

function stopOf(stop: string[] | undefined): string[] | undefined {
  if (!stop?.length) return undefined;
  if (stop.length > MAX_STOP_SEQUENCES || stop.some((s) => !s.length || s.length > MAX_STOP_LENGTH))
    throw invalid(
      'stop_sequences',
      `stop_sequences must be up to ${MAX_STOP_SEQUENCES} strings of 1–${MAX_STOP_LENGTH} characters`,
    );
  return stop;
}

/**
 * Checks `thinking`: `{type: "disabled"}`, `{type: "adaptive"}` (the model decides) or
 * `{type: "enabled", budget_tokens >= 1024}`.
 */
function checkThinking(thinking: Record<string, unknown> | undefined): void {
  if (!thinking || thinking.type === 'disabled' || thinking.type === 'adaptive') return;
  const budget = thinking.budget_tokens;
  if (thinking.type !== 'enabled' || !Number.isInteger(budget) || (budget as number) < 1024)
    throw invalid(
      'thinking',
      'thinking must be {type: "disabled"}, {type: "adaptive"} or {type: "enabled", budget_tokens: an integer >= 1024}',
    );
}

/** True when the request asks the model to reason (`thinking.type: "enabled"`). */
export const wantsThinking = (req: CountTokensRequestDto) => req.thinking?.type === 'enabled';

/**
 * An Anthropic Messages request (or a count_tokens one) as our CallRequest. Throws
 * VALIDATION_FAILED (400, the field named) for malformed blocks, an empty message, a
 * `tool_result` whose id no earlier `tool_use` has, or bad `stop_sequences`/`thinking`, and
 * UNSUPPORTED_PARAMETER (400, `param` named) for `top_k` and blocks we cannot send (documents,
 * server tools' results, images in a `tool_result`).
 */
export function toWireGenerateDto(
  req: CountTokensRequestDto & Partial<MessagesRequestDto>,
): CallRequest {
  if (req.top_k !== undefined && req.top_k !== null)
    throw unsupported('top_k', 'top_k is not supported');
  checkThinking(req.thinking);
  const calls = new Map<string, string>();
  const messages: (GenerateMessageDto | WireMessage)[] = [];
  const system = req.system === undefined ? '' : textOf(req.system, 'system');
  if (system) messages.push({ role: 'system', content: system });
  req.messages.forEach((m, i) => {
    const at = `messages[${i}].content`;
    // A system turn (Claude Code sends reminders so) stays where it is: each adapter places
    // system messages as its API takes them.
    if (m.role === 'system') {
      const text = textOf(m.content, at);
      if (text) messages.push({ role: 'system', content: text });
    } else messages.push(...messagesOf(m.role, m.content, at, calls));
  });
  return {
    modelId: req.model,
    messages,
    maxTokens: req.max_tokens,
    temperature: req.temperature,
    topP: req.top_p,
    stop: stopOf(req.stop_sequences),
  };
}

/** A tool of `tools` as ours; server tools (a `type` other than `custom`) are refused by name. */
function toolOf(tool: Block, at: string): ToolDefinition {
  if (tool?.type !== undefined && tool.type !== 'custom')
    throw unsupported(`${at}.type`, `${at}: server tools (${String(tool.type)}) are not supported`);
  if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
    throw invalid(`${at}.name`, 'name must match ^[a-zA-Z0-9_-]{1,64}$');
  if (tool.description !== undefined && typeof tool.description !== 'string')
    throw invalid(`${at}.description`, 'description must be a string');
  const schema = tool.input_schema as Record<string, unknown> | undefined;
  if (typeof schema !== 'object' || schema === null || schema.type !== 'object')
    throw invalid(`${at}.input_schema`, 'input_schema must be a JSON Schema with type "object"');
  return { name: tool.name, description: tool.description ?? '', parameters: schema };
}

/** `tool_choice` in our terms: auto, none, any (→ required) or one tool by name. */
function toolChoiceOf(choice: Record<string, unknown>, names: string[]): ToolChoice {
  switch (choice.type) {
    case 'auto':
    case 'none':
      return choice.type;
    case 'any':
      return 'required';
    case 'tool':
      if (typeof choice.name !== 'string' || !names.includes(choice.name))
        throw invalid('tool_choice.name', 'tool_choice.name must name one of tools');
      return { name: choice.name };
  }
  throw invalid('tool_choice.type', 'tool_choice.type must be auto, any, tool or none');
}

/**
 * The request's `tools` and `tool_choice` as client tools, or undefined without tools (a
 * `tool_choice` other than auto/none then is a 400). Throws VALIDATION_FAILED naming the field.
 */
export function clientToolsOf(req: CountTokensRequestDto): ClientTools | undefined {
  const choice = req.tool_choice;
  if (
    choice &&
    choice.disable_parallel_tool_use !== undefined &&
    typeof choice.disable_parallel_tool_use !== 'boolean'
  )
    throw invalid(
      'tool_choice.disable_parallel_tool_use',
      'disable_parallel_tool_use must be a boolean',
    );
  if (!req.tools?.length) {
    if (choice && choice.type !== 'auto' && choice.type !== 'none')
      throw invalid('tool_choice', 'tool_choice needs tools');
    return undefined;
  }
  const tools = req.tools.map((t, i) => toolOf(t as Block, `tools[${i}]`));
  const names = tools.map((t) => t.name);
  if (new Set(names).size !== names.length) throw invalid('tools', 'tool names must be unique');
  return {
    tools,
    ...(choice ? { toolChoice: toolChoiceOf(choice, names) } : {}),
    ...(choice?.disable_parallel_tool_use === true ? { parallelToolCalls: false } : {}),
  };
}
