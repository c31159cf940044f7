import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { pluginsConfig } from '../plugins.config';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AppError } from '../../common/errors/app-error';
import { PluginsErrorCode } from '../plugins.errors';
import { guardedFetch } from '../ssrf/guarded-fetch';
import { checkPluginUrl } from '../ssrf/url-guard';
import { failedResult, okResult } from '../tool-result';
import type { ToolResult } from '../tool.types';
import { describeContent, type McpContentPart } from './mcp-content';
import type { JsonSchema } from '../../models/call.types';

/** Where an MCP server is and the headers it wants (decrypted, never logged). */
export interface McpTarget {
  url: string;
  headers: Record<string, string>;
}

/** A tool as the server lists it (its own name, not yet prefixed). */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** Most tools read from one server (`tools/list` pages are followed up to this). */
export const MAX_TOOLS_PER_PLUGIN = 128;
const MAX_PAGES = 10;

/**
 * The MCP client side of plugins: one Streamable HTTP connection per operation,
 * through the SSRF-guarded fetch (the URL and every resolved address are checked at each
 * connection), bounded by PLUGIN_TOOL_TIMEOUT_MS from connect to answer.
 */
@Injectable()
export class McpClientService {
  private readonly log = new Logger(McpClientService.name);
  private readonly timeoutMs: number;
  private readonly allowedHosts: string[];

  constructor(@Inject(pluginsConfig.KEY) plugins: ConfigType<typeof pluginsConfig>) {
    ({ toolTimeoutMs: this.timeoutMs, allowedHosts: this.allowedHosts } = plugins);
  }

  /**
   * The server's tools (`tools/list`, all pages, at most 128). Throws PLUGIN_URL_FORBIDDEN (400)
   * when the URL or a resolved address is refused, PLUGIN_UNREACHABLE (422) on any other failure
   * (connection, HTTP status, protocol, timeout).
   */
  async listTools(target: McpTarget, signal?: AbortSignal): Promise<McpTool[]> {
    try {
      return await this.withClient(target, signal, async (client, opts) => {
        const tools: McpTool[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_PAGES && tools.length < MAX_TOOLS_PER_PLUGIN; page++) {
          const res = await client.listTools(cursor ? { cursor } : undefined, opts);
          for (const t of res.tools)
            tools.push({
              name: t.name,
              description: t.description ?? t.title ?? '',
              inputSchema: t.inputSchema as JsonSchema,
            });
          cursor = res.nextCursor;
          if (!cursor) break;
        }
        return tools.slice(0, MAX_TOOLS_PER_PLUGIN);
      });
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw new AppError(
        PluginsErrorCode.PLUGIN_UNREACHABLE,
        `The plugin server did not list its tools: ${this.reason(e, signal)}`,
      );
    }
  }

  /**
   * Runs `tools/call` of tool `name` (the server's own name) with `args`. Never throws: an error
   * result (`isError`), a refused URL, a timeout, a cancellation (`signal`) or a transport error
   * are `ok: false` with the reason; text parts are joined, other parts described.
   */
  async callTool(
    target: McpTarget,
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    try {
      const res = await this.withClient(target, signal, (client, opts) =>
        client.callTool({ name, arguments: args }, undefined, opts),
      );
      const text = describeContent(
        (res.content ?? []) as McpContentPart[],
        'structuredContent' in res ? res.structuredContent : undefined,
      );
      return res.isError ? failedResult(text || `The tool ${name} failed`) : okResult(text);
    } catch (e) {
      if (isMcpError(e, 'InvalidParams'))
        return failedResult(`Invalid arguments for ${name}: ${(e as Error).message}`);
      return failedResult(`The tool ${name} failed: ${this.reason(e, signal)}`);
    }
  }

  /** Connects, runs `fn` with request options carrying the deadline, and always disconnects. */
  private async withClient<T>(
    target: McpTarget,
    signal: AbortSignal | undefined,
    fn: (client: Client, opts: { signal: AbortSignal; timeout: number }) => Promise<T>,
  ): Promise<T> {
    const { url } = checkPluginUrl(target.url, this.allowedHosts);
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const opts = {
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
      timeout: this.timeoutMs,
    };
    const { Client, StreamableHTTPClientTransport } = mcpSdk();
    const transport = new StreamableHTTPClientTransport(url, {
      fetch: guardedFetch(this.allowedHosts),
      requestInit: { headers: target.headers },
    });
    const client = new Client({ name: 'ai-chat-backend', version: '1.0.0' });
    try {
      await client.connect(transport, opts);
      return await fn(client, opts);
    } finally {
      // Closing aborts whatever is still in flight (a tool that outlived the deadline).
      await client.close().catch(() => undefined);
    }
  }

  /** A short reason for `e`; the timeout and the caller's cancellation are named as such. */
  private reason(e: unknown, signal?: AbortSignal): string {
    if (signal?.aborted) return 'cancelled';
    const err = e as { name?: string; code?: unknown; message?: string };
    if (err?.name === 'TimeoutError' || isMcpError(e, 'RequestTimeout'))
      return `timed out after ${this.timeoutMs} ms`;
    if (e instanceof AppError) return e.message;
    const message = String(err?.message ?? e).slice(0, 300);
    this.log.warn(`MCP request failed: ${message}`);
    return message;
  }
}

/**
 * The MCP SDK's client parts, loaded on first use: the SDK and its zod schemas cost several MB of
 * heap, which a process without MCP plugins (and every test file that boots the app) skips.
 */
function mcpSdk() {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return (sdk ??= {
    Client: (
      require('@modelcontextprotocol/sdk/client/index.js') as typeof import('@modelcontextprotocol/sdk/client/index.js')
    ).Client,
    StreamableHTTPClientTransport: (
      require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')
    ).StreamableHTTPClientTransport,
    types:
      require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js'),
  });
  /* eslint-enable @typescript-eslint/no-require-imports */
}
let sdk:
  | {
      Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
      StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
      types: typeof import('@modelcontextprotocol/sdk/types.js');
    }
  | undefined;

/** Whether `e` is the SDK's McpError with that JSON-RPC code (false before the SDK is loaded). */
function isMcpError(e: unknown, code: 'InvalidParams' | 'RequestTimeout'): e is Error {
  if (!sdk) return false;
  return e instanceof sdk.types.McpError && e.code === sdk.types.ErrorCode[code];
}
