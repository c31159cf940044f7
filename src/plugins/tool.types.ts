import type { SessionUser } from '../common/auth/session-user';

/**
 * Tools as the model sees them, shared by the plugins module (which defines and runs them) and
 * the AI module (which offers them to a model and runs the loop, issue 18 §2). Provider-neutral:
 * each adapter maps these to its SDK's shapes.
 */

/** A JSON Schema object (draft 2020-12 subset the three providers accept). */
export type JsonSchema = Record<string, unknown>;

/** A tool offered to the model. `name` matches /^[a-zA-Z0-9_-]{1,64}$/ (all three APIs). */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object (`type: "object"`). */
  parameters: JsonSchema;
}

/** A call the model asked for; `id` is the provider's call id (ours for Gemini). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * What running a tool gave. Errors are results too (`ok: false`, the message in `content`): the
 * model is told, nothing is thrown. `content` is at most 32 KB (truncated with a note).
 */
export interface ToolResult {
  ok: boolean;
  /** Text handed back to the model. */
  content: string;
  /** A short one-line form for the SSE `tool_result` event (at most 200 characters). */
  summary: string;
}

/** The tools of one request: their definitions and how to run them. */
export interface ToolBox {
  definitions: ToolDefinition[];
  /** Runs one call; never throws (unknown tool, bad arguments, timeout → `ok: false`). */
  call(call: ToolCall, signal?: AbortSignal): Promise<ToolResult>;
}

/**
 * Resolves the plugin names of a request to their tools (implemented by PluginsService); the AI
 * module depends on this port only. Throws UNKNOWN_PLUGIN (400) for a name that is neither a
 * built-in nor an enabled registered plugin.
 */
export abstract class ToolBoxes {
  abstract toolBox(user: SessionUser, names: string[]): Promise<ToolBox>;
}
