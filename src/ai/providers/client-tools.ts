import type { CallRequest, JsonSchema, ToolDefinition, WireMessage } from '../../models/call.types';

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

/** True for the WireMessage items of a request (tool calls or a tool result). */
export function isWireMessage(m: CallRequest['messages'][number]): m is WireMessage {
  return m.role === 'tool' || 'toolCalls' in m;
}
