import type { ApiScope } from '../common/auth/api-scopes';
import type { SessionUser } from '../common/auth/session-user';
import type { ToolCall, ToolDefinition } from '../models/call.types';

/**
 * Tools as the model sees them, shared by the plugins module (which defines and runs them) and
 * the AI module (which offers them to a model and runs the loop). Provider-neutral:
 * each adapter maps these to its SDK's shapes.
 */

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
 * What a tool reads besides its arguments. `arguments`: nothing else (a calculator, the clock,
 * an MCP server, which is given only the arguments). `caller-private-data`: data only the
 * caller may read (their chats): its output may reach no one but the caller.
 */
export type ToolReads = 'arguments' | 'caller-private-data';

/** Where a request's tool results go, asked only when a private-data tool is wanted. */
export interface ToolTarget {
  /**
   * True when no one but the caller can read the chat that receives the tools' results and the
   * replies built on them: a new chat, or the caller's own chat, not shared with a team and
   * without a share link.
   */
  onlyCallerReads(): Promise<boolean>;
}

/**
 * Resolves the plugin names of a request to their tools (implemented by PluginsService); the AI
 * module depends on this port only. Tools act with the caller's rights: with an API key, a tool
 * needing a scope (`search_my_chats`: `chats:read`) needs the key to hold it; a tool reading the
 * caller's private data runs only when `target` is read by the caller alone. Throws
 * UNKNOWN_PLUGIN (400) for a name that is neither a built-in nor an enabled registered plugin,
 * INSUFFICIENT_SCOPE (403), PLUGIN_NOT_ALLOWED (403, `details.plugins`: the refused names).
 */
export abstract class ToolBoxes {
  abstract toolBox(user: SessionUser, names: string[], target: ToolTarget): Promise<ToolBox>;
}

/** The declaration of what a tool needs, for the checks above. */
export interface ToolNeeds {
  reads: ToolReads;
  /** The API key scope the tool needs (e.g. `chats:read` to search chats). */
  scope?: ApiScope;
}
