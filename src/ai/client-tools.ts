import type { JsonSchema, ToolCall, ToolDefinition } from '../plugins/tool.types';
import type { GenerateDto, GenerateMessageDto } from './dto/generate.dto';
import type { MessageContent } from './dto/message-content';
import { AppError, ErrorCode } from '../common/errors/app-error';
import { codePoints } from '../credits/pricing';
import type { ModelDescriptor } from '../models/model-catalogue';
import { requireCapability } from './message-inputs';
import type { ProviderMessage } from './providers/model-provider';

/**
 * Tools the client runs and the answer's format, as the wire protocols (`/v1`) hand them to
 * AiService. The server never runs a client tool: the model's calls are returned to the caller.
 */

/** How the model may use the client's tools: OpenAI `tool_choice`, Anthropic `tool_choice`, Responses `tool_choice`. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** Tools the CLIENT runs (wire protocols): offered to the model; its calls are returned, never run here. */
export interface ClientTools {
  tools: ToolDefinition[];
  /** Default `'auto'`. */
  toolChoice?: ToolChoice;
  /** false: at most one call per turn. Default true. */
  parallelToolCalls?: boolean;
}

/** The answer's format (OpenAI response_format / Responses text.format). */
export type ResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: JsonSchema; strict?: boolean };

/**
 * A message of a wire request beyond text/images: an assistant turn that called tools (its
 * `content` may be `''`), or a tool's result. `toolName` is the called tool's name (Gemini's
 * functionResponse needs it; mappers that only have the id look it up in the earlier assistant
 * turn's `toolCalls`).
 */
export type WireMessage =
  | { role: 'assistant'; content: MessageContent; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

/** Why a reply ended, in our terms; each protocol maps it (OpenAI finish_reason, Anthropic stop_reason, Responses status). */
export type FinishReason = 'stop' | 'length' | 'tool_calls';

/**
 * A request built by a wire mapper: a GenerateDto whose messages may also be WireMessages.
 * Every GenerateDto is one (`/api/ai/generate` validation is unchanged).
 */
export type WireGenerateDto = Omit<GenerateDto, 'messages'> & {
  messages: (GenerateMessageDto | WireMessage)[];
};

/** True for the WireMessage items of a request (tool calls or a tool result). */
export function isWireMessage(m: GenerateMessageDto | WireMessage): m is WireMessage {
  return m.role === 'tool' || 'toolCalls' in m;
}

/**
 * Checks a call's client tools and format against its model before anything is held: throws
 * VALIDATION_FAILED (400) for client tools together with plugins (the server would run some
 * tools and return others), MODEL_CAPABILITY_MISSING (400) for client tools to a model without
 * `tools` or a response format to one without `structured_output`.
 */
export function checkClientTools(
  model: ModelDescriptor,
  options: { clientTools?: ClientTools; responseFormat?: ResponseFormat },
  hasPlugins: boolean,
): void {
  if (options.clientTools) {
    if (hasPlugins)
      throw new AppError(
        ErrorCode.VALIDATION_FAILED,
        'Client tools cannot be combined with plugins (the plugins run on the server)',
      );
    requireCapability(model, 'tools');
  }
  if (options.responseFormat) requireCapability(model, 'structured_output');
}

/**
 * Prompt tokens the provider is sent beyond the messages' text, estimated as ceil(characters /
 * 4) of their JSON: the client tools' definitions, the response format's schema, and the tool
 * calls of earlier assistant turns. Added to the hold (the worst case) and to the estimate of a
 * cut stream.
 */
export function clientToolTokens(
  options: { clientTools?: ClientTools; responseFormat?: ResponseFormat },
  messages: ProviderMessage[],
): number {
  let chars = 0;
  if (options.clientTools) chars += codePoints(JSON.stringify(options.clientTools));
  if (options.responseFormat) chars += codePoints(JSON.stringify(options.responseFormat));
  for (const m of messages) if (m.toolCalls) chars += codePoints(JSON.stringify(m.toolCalls));
  return Math.ceil(chars / 4);
}
