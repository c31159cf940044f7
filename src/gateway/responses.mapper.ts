// The Responses wire OUT: our result as OpenAI's `response` object and its output items (the
// request IN is responses-input.mapper.ts).
import { randomBytes } from 'node:crypto';
import type { ResponseCreateDto } from './dto/responses.dto';
import type { FinishReason, TokenUsage, ToolCall } from '../models/call.types';

/** An id in OpenAI's style: `prefix_` and 48 hex digits (`resp_…`, `msg_…`, `fc_…`). */
export const wireId = (prefix: 'resp' | 'msg' | 'fc') =>
  `${prefix}_${randomBytes(24).toString('hex')}`;

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

/** An assistant message item with its one `output_text` part. */
export interface MessageItem {
  type: 'message';
  id: string;
  status: ItemStatus;
  role: 'assistant';
  content: { type: 'output_text'; text: string; annotations: never[]; logprobs: never[] }[];
}

/** A function call the client is to run; `call_id` is what its `function_call_output` names. */
export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  /** The arguments as a JSON string. */
  arguments: string;
  status: ItemStatus;
}

export type OutputItem = MessageItem | FunctionCallItem;

/** The request fields a response echoes, with OpenAI's defaults. */
export interface ResponseEcho {
  instructions: string | null;
  max_output_tokens: number | null;
  tools: object[];
  tool_choice: unknown;
  parallel_tool_calls: boolean;
  temperature: number | null;
  top_p: number | null;
  text: { format: object };
  store: boolean;
  previous_response_id: string | null;
  metadata: Record<string, unknown>;
}

/** OpenAI's `usage` of a response (tokens). */
export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** The `response` object (whole answer, stored, and carried by the lifecycle stream events). */
export interface ResponseObject extends ResponseEcho {
  id: string;
  object: 'response';
  created_at: number;
  status: 'in_progress' | 'completed' | 'incomplete';
  error: null;
  incomplete_details: { reason: 'max_output_tokens' } | null;
  model: string;
  output: OutputItem[];
  output_text: string;
  usage: ResponseUsage | null;
  /** Credits charged (our extra field); absent until the reply is settled. */
  cost?: number;
}

/** The request fields echoed by its response, OpenAI's defaults where absent. */
export function echoOf(req: ResponseCreateDto): ResponseEcho {
  const tools = Array.isArray(req.tools) ? (req.tools as Record<string, unknown>[]) : [];
  const text = req.text as { format?: object } | undefined;
  return {
    instructions: req.instructions ?? null,
    max_output_tokens: req.max_output_tokens ?? null,
    tools: tools.map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description ?? null,
      parameters: t.parameters ?? null,
      strict: t.strict ?? true,
    })),
    tool_choice: req.tool_choice ?? 'auto',
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    temperature: req.temperature ?? null,
    top_p: req.top_p ?? null,
    text: { format: text?.format ?? { type: 'text' } },
    store: req.store === true,
    previous_response_id: req.previous_response_id ?? null,
    metadata: req.metadata ?? {},
  };
}

/** OpenAI's usage object for our usage. */
export function responseUsageOf(u: TokenUsage): ResponseUsage {
  return {
    input_tokens: u.promptTokens,
    input_tokens_details: { cached_tokens: u.cachedTokens ?? 0 },
    output_tokens: u.completionTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
    total_tokens: u.promptTokens + u.completionTokens,
  };
}

export function messageItem(id: string, text: string, status: ItemStatus): MessageItem {
  return {
    type: 'message',
    id,
    status,
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
  };
}

export function functionCallItem(id: string, call: ToolCall, status: ItemStatus): FunctionCallItem {
  return {
    type: 'function_call',
    id,
    call_id: call.id,
    name: call.name,
    arguments: JSON.stringify(call.arguments),
    status,
  };
}

/**
 * The output items of a whole reply: the text as one message (none when empty and the model
 * called tools), then one `function_call` per tool call, in order.
 */
export function outputOf(text: string, calls: ToolCall[], incomplete: boolean): OutputItem[] {
  const status: ItemStatus = incomplete ? 'incomplete' : 'completed';
  const output: OutputItem[] = [];
  if (text || !calls.length) output.push(messageItem(wireId('msg'), text, status));
  for (const call of calls) output.push(functionCallItem(wireId('fc'), call, 'completed'));
  return output;
}

/** A response before its reply: `in_progress`, no output, no usage. */
export function pendingResponse(id: string, model: string, echo: ResponseEcho): ResponseObject {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    model,
    output: [],
    output_text: '',
    usage: null,
    ...echo,
  };
}

/**
 * The finished response: `incomplete` with `incomplete_details.reason: "max_output_tokens"`
 * when the reply hit the output limit (`finishReason: 'length'`), else `completed`.
 */
export function finishedResponse(
  pending: ResponseObject,
  output: OutputItem[],
  reply: { usage: TokenUsage; cost: number; finishReason: FinishReason },
): ResponseObject {
  const incomplete = reply.finishReason === 'length';
  return {
    ...pending,
    status: incomplete ? 'incomplete' : 'completed',
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    output,
    output_text: output
      .flatMap((item) => (item.type === 'message' ? item.content.map((c) => c.text) : []))
      .join(''),
    usage: responseUsageOf(reply.usage),
    cost: reply.cost,
  };
}
