import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { pluginsConfig } from './plugins.config';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { requireScope } from '../common/auth/require-scope';
import type { SessionUser } from '../common/auth/session-user';
import { Clock } from '../common/clock/clock';
import { SecretBox } from '../common/crypto/secret-box';
import { AppError } from '../common/errors/app-error';
import { PluginsErrorCode } from './plugins.errors';
import type { BuiltinTool, ToolOutput } from './builtin-tool';
import { calculatorTool } from './builtins/calculator.tool';
import { CalculatorWorkers } from './builtins/calculator-workers';
import { currentTimeTool } from './builtins/current-time.tool';
import { McpClientService, type McpTarget, type McpTool } from './mcp/mcp-client.service';
import { PluginToolsCache } from './mcp/plugin-tools-cache';
import { exposedToolName } from './mcp/tool-names';
import { openHeaders } from './plugin-headers';
import { Plugin } from './plugin.entity';
import { failedResult, okResult, ToolFailure } from './tool-result';
import type { ToolBox, ToolResult, ToolTarget } from './tool.types';
import type { ToolCall, ToolDefinition } from '../models/call.types';

/** One plugin as GET /api/plugins lists it. */
export interface PluginListing {
  name: string;
  kind: 'builtin' | 'mcp';
  /** MCP plugins only. */
  id?: string;
  /** False when an MCP server could not be reached just now (its tools are then empty). */
  available: boolean;
  tools: ToolDefinition[];
}

/**
 * Names of built-in plugins, each also its tool's name: provider-safe, and without `__`, so a
 * built-in's tool never takes the name of an MCP tool (`<plugin>__<tool>`).
 */
const BUILTIN_NAME = /^(?!.*__)[a-z0-9_]{1,64}$/;

type Route =
  { kind: 'builtin'; tool: BuiltinTool } | { kind: 'mcp'; target: McpTarget; toolName: string };

/**
 * The tools a model may use: built-in plugins (in-process; `registerBuiltin`) and
 * the enabled MCP plugins. The AI module asks `toolBox(user, names)` for a request's tools.
 */
@Injectable()
export class PluginsService {
  private readonly log = new Logger(PluginsService.name);
  private readonly builtins = new Map<string, BuiltinTool>();
  private readonly builtinTimeoutMs: number;

  constructor(
    @InjectRepository(Plugin) private readonly plugins: Repository<Plugin>,
    private readonly box: SecretBox,
    private readonly mcp: McpClientService,
    private readonly cache: PluginToolsCache,
    clock: Clock,
    calculatorWorkers: CalculatorWorkers,
    @Inject(pluginsConfig.KEY) settings: ConfigType<typeof pluginsConfig>,
  ) {
    this.builtinTimeoutMs = settings.builtinTimeoutMs;
    this.registerBuiltin(calculatorTool(calculatorWorkers));
    this.registerBuiltin(currentTimeTool(clock));
  }

  /**
   * Adds a built-in plugin (one tool of the same name). The registration port for modules this
   * one cannot import without a cycle: the search module registers `search_my_chats` at init.
   * Throws when the name is not /^[a-z0-9_]{1,64}$/ without `__`, or is already registered (a
   * programming error).
   */
  registerBuiltin(tool: BuiltinTool): void {
    if (!BUILTIN_NAME.test(tool.name)) throw new Error(`Invalid built-in tool name: ${tool.name}`);
    if (this.builtins.has(tool.name))
      throw new Error(`Built-in tool ${tool.name} is registered twice`);
    this.builtins.set(tool.name, tool);
  }

  /** True when `name` is a built-in plugin (registered plugins may not take such a name). */
  isBuiltin(name: string): boolean {
    return this.builtins.has(name);
  }

  /**
   * GET /api/plugins: the built-ins, then the enabled MCP plugins by name, each with the tools
   * the model would see (MCP lists cached 60 s). A server that cannot be reached is listed with
   * `available: false` and no tools rather than failing the list.
   */
  async list(): Promise<PluginListing[]> {
    const builtins: PluginListing[] = [...this.builtins.values()].map((t) => ({
      name: t.name,
      kind: 'builtin',
      available: true,
      tools: [definitionOf(t)],
    }));
    const rows = await this.enabledRows();
    const mcp = await Promise.all(
      rows.map(async (row): Promise<PluginListing> => {
        const base = { name: row.name, kind: 'mcp' as const, id: row.id };
        try {
          const tools = await this.toolsOf(row);
          return { ...base, available: true, tools: tools.map((t) => t.definition) };
        } catch {
          return { ...base, available: false, tools: [] };
        }
      }),
    );
    return [...builtins, ...mcp];
  }

  /**
   * The tools of plugins `names` for one request of `user`. Built-ins keep their names; an MCP
   * plugin's tools are `<plugin>__<tool>` (see exposedToolName). `call` never throws: an unknown
   * tool, arguments that are not an object or that the tool refuses, a timeout (PLUGIN_TOOL_TIMEOUT_MS
   * for MCP tools, BUILTIN_TOOL_TIMEOUT_MS for built-ins) or a transport error is `ok: false`; content is at most 32 KB, summary 200 characters.
   * Throws UNKNOWN_PLUGIN (400, `details.plugins`: the unknown names) when a name is neither a
   * built-in nor an enabled registered plugin; PLUGIN_UNREACHABLE (422) or PLUGIN_URL_FORBIDDEN
   * (400) when an MCP server's tools cannot be listed; INSUFFICIENT_SCOPE (403) or
   * PLUGIN_NOT_ALLOWED (403) as ToolBoxes states (checked before any MCP server is called).
   */
  async toolBox(user: SessionUser, names: string[], target: ToolTarget): Promise<ToolBox> {
    const wanted = [...new Set(names)];
    const external = wanted.filter((n) => !this.builtins.has(n));
    const rows = external.length ? await this.enabledRows(external) : [];
    const unknown = external.filter((n) => !rows.some((r) => r.name === n));
    if (unknown.length)
      throw new AppError(PluginsErrorCode.UNKNOWN_PLUGIN, `Unknown plugin: ${unknown.join(', ')}`, {
        plugins: unknown,
      });
    await this.requireAllowed(user, wanted, target);

    const routes = new Map<string, Route>();
    const definitions: ToolDefinition[] = [];
    for (const name of wanted) {
      const tool = this.builtins.get(name);
      if (!tool) continue;
      routes.set(name, { kind: 'builtin', tool });
      definitions.push(definitionOf(tool));
    }
    const listed = await Promise.all(rows.map((row) => this.toolsOf(row)));
    for (const tools of listed)
      for (const t of tools) {
        if (routes.has(t.definition.name)) continue; // first wins on a (hash-proof) clash
        routes.set(t.definition.name, { kind: 'mcp', target: t.target, toolName: t.toolName });
        definitions.push(t.definition);
      }
    return { definitions, call: (call, signal) => this.run(routes, user, call, signal) };
  }

  /**
   * The caller's rights over what the built-ins `names` read: each one's API key scope, and
   * tools reading the caller's private data only where the caller alone reads their output
   * (the chat's readers are looked up only when such a tool is wanted). MCP plugins read only
   * their arguments.
   */
  private async requireAllowed(
    user: SessionUser,
    names: string[],
    target: ToolTarget,
  ): Promise<void> {
    const tools = names.flatMap((n) => this.builtins.get(n) ?? []);
    for (const tool of tools) if (tool.scope) requireScope(user, tool.scope, `plugin ${tool.name}`);
    const privateReaders = tools
      .filter((t) => t.reads === 'caller-private-data')
      .map((t) => t.name);
    if (privateReaders.length && !(await target.onlyCallerReads()))
      throw new AppError(
        PluginsErrorCode.PLUGIN_NOT_ALLOWED,
        `Plugin ${privateReaders.join(', ')} reads your private data and cannot run in a chat others can read`,
        { plugins: privateReaders },
      );
  }

  /** Runs one call on its route; every failure becomes `ok: false` (see toolBox). */
  private async run(
    routes: Map<string, Route>,
    user: SessionUser,
    call: ToolCall,
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    try {
      const route = routes.get(call.name);
      if (!route) return failedResult(`Unknown tool "${call.name}"`);
      const args = call.arguments;
      if (typeof args !== 'object' || args === null || Array.isArray(args))
        return failedResult(`The arguments of ${call.name} must be a JSON object`);
      if (route.kind === 'mcp')
        return await this.mcp.callTool(route.target, route.toolName, args, signal);
      const out = await this.runBuiltin(route.tool, args, user, signal);
      return okResult(out.content, out.summary);
    } catch (e) {
      if (e instanceof ToolFailure || e instanceof AppError) return failedResult(e.message);
      this.log.error(`Tool ${call.name} failed: ${(e as Error)?.stack ?? String(e)}`);
      return failedResult(`The tool ${call.name} failed unexpectedly`);
    }
  }

  /**
   * Runs a built-in within BUILTIN_TOOL_TIMEOUT_MS: a tool bounding itself (`ownLimits`) runs
   * as is; any other is no longer waited for past that time (ToolFailure) and its signal aborts.
   */
  private async runBuiltin(
    tool: BuiltinTool,
    args: Record<string, unknown>,
    user: SessionUser,
    signal?: AbortSignal,
  ): Promise<ToolOutput> {
    if (tool.ownLimits) return tool.run(args, { user, signal });
    const deadline = new AbortController();
    const stopped = new Promise<never>((_, reject) => {
      deadline.signal.addEventListener('abort', () =>
        reject(
          new ToolFailure(`The tool ${tool.name} ran longer than ${this.builtinTimeoutMs} ms`),
        ),
      );
    });
    const timer = setTimeout(() => deadline.abort(), this.builtinTimeoutMs);
    try {
      const both = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
      return await Promise.race([tool.run(args, { user, signal: both }), stopped]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Enabled MCP plugins (all, or those named), with their sealed headers, by name. */
  private enabledRows(names?: string[]): Promise<Plugin[]> {
    return this.plugins.find({
      where: { enabled: true, ...(names ? { name: In(names) } : {}) },
      select: { id: true, name: true, url: true, headers: true, updatedAt: true },
      order: { name: 'ASC' },
    });
  }

  /** `row`'s tools as the model sees them, with where to call each (cached listing). */
  private async toolsOf(
    row: Plugin,
  ): Promise<{ definition: ToolDefinition; target: McpTarget; toolName: string }[]> {
    const target = { url: row.url, headers: openHeaders(this.box, row.id, row.headers) };
    const tools = await this.cache.get(row.id, row.updatedAt.getTime(), () =>
      this.mcp.listTools(target),
    );
    return tools.map((t) => ({ definition: mcpDefinition(row.name, t), target, toolName: t.name }));
  }
}

function definitionOf(t: BuiltinTool): ToolDefinition {
  return { name: t.name, description: t.description, parameters: t.parameters };
}

/** An MCP tool as offered to the model: prefixed name, the server's schema (an object). */
export function mcpDefinition(plugin: string, t: McpTool): ToolDefinition {
  const schema = t.inputSchema && typeof t.inputSchema === 'object' ? t.inputSchema : {};
  return {
    name: exposedToolName(plugin, t.name),
    description: t.description,
    parameters: { ...schema, type: 'object' },
  };
}
