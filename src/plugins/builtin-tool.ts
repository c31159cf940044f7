import type { SessionUser } from '../common/auth/session-user';
import type { ToolNeeds } from './tool.types';
import type { JsonSchema } from '../models/call.types';

/** What a built-in tool is given besides its arguments. */
export interface ToolContext {
  /** Whose request runs the tool: tools act with exactly this user's access. */
  user: SessionUser;
  /** Aborted when the request ends (client gone, timeout): stop early. */
  signal?: AbortSignal;
}

/** What a built-in tool answers: the text for the model and, optionally, a shorter line. */
export interface ToolOutput {
  content: string;
  summary?: string;
}

/**
 * A tool that runs in-process: one plugin of one tool, both named `name` (/^[a-z0-9_]{1,64}$/,
 * without `__`). Registered with `PluginsService.registerBuiltin` (modules that the plugins
 * module cannot import register theirs at init). `run` throws ToolFailure for what the model
 * should be told (bad arguments, a failed computation); any other error is reported to the
 * model as a generic failure and logged. `reads` and `scope` declare what it reads (see
 * ToolBoxes): every tool states it, so a new tool reading private data cannot slip through.
 */
export interface BuiltinTool extends ToolNeeds {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
  /**
   * True when `run` bounds its own time and memory (the calculator: a worker terminated past
   * BUILTIN_TOOL_TIMEOUT_MS); otherwise the plugins service stops waiting after that time and
   * aborts `ctx.signal`, and the tool must be bounded in memory by construction.
   */
  ownLimits?: boolean;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}
