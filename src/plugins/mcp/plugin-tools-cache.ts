import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock/clock';
import type { McpTool } from './mcp-client.service';

/** How long a server's `tools/list` answer is reused (ms). */
export const TOOLS_CACHE_TTL_MS = 60_000;
/**
 * How long a failed `tools/list` is reused (ms): a server that is down costs one timeout per
 * window, not one per listing or request.
 */
export const FAILURE_CACHE_TTL_MS = 10_000;

interface Entry {
  /** The plugin's `updatedAt`: a changed URL or headers make the entry stale at once. */
  version: number;
  expiresAt: number;
  tools: Promise<McpTool[]>;
}

/**
 * Each MCP plugin's tools, in this process's memory for 60 s; a failure for 10 s.
 * Expiry is lazy (read time, from the Clock): no timers. Concurrent readers share one
 * `tools/list`.
 */
@Injectable()
export class PluginToolsCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly clock: Clock) {}

  /**
   * The tools of plugin `id` at `version` (its `updatedAt` in ms): the cached answer while fresh,
   * else `load()`'s, which is cached. Rejects with `load`'s error.
   */
  get(id: string, version: number, load: () => Promise<McpTool[]>): Promise<McpTool[]> {
    const now = this.clock.now().getTime();
    const hit = this.entries.get(id);
    if (hit && hit.version === version && hit.expiresAt > now) return hit.tools;
    const tools = load();
    const entry = { version, expiresAt: now + TOOLS_CACHE_TTL_MS, tools };
    this.entries.set(id, entry);
    tools.catch(() => {
      entry.expiresAt = Math.min(
        entry.expiresAt,
        this.clock.now().getTime() + FAILURE_CACHE_TTL_MS,
      );
    });
    return tools;
  }

  /** Stores tools just read (registration, update) for plugin `id` at `version`. */
  put(id: string, version: number, tools: McpTool[]): void {
    const expiresAt = this.clock.now().getTime() + TOOLS_CACHE_TTL_MS;
    this.entries.set(id, { version, expiresAt, tools: Promise.resolve(tools) });
  }

  /** Forgets plugin `id` (deleted or disabled). */
  drop(id: string): void {
    this.entries.delete(id);
  }
}
