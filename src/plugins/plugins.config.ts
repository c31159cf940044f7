import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { emptyToUndefined, list, toInt } from '../config/feature-environment';

// One host (a name, an IPv4 address or a bracketed IPv6 address) with an optional port.
const HOST_ENTRY = String.raw`(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::\d{1,5})?`;
const ALLOWED_HOSTS = new RegExp(String.raw`^\s*${HOST_ENTRY}(?:\s*,\s*${HOST_ENTRY})*\s*$`);

/**
 * MCP plugin calls (their timeout, the hosts exempt from the SSRF address rules) and the limits
 * of built-in tools.
 */
export class PluginsEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) @Max(600_000) PLUGIN_TOOL_TIMEOUT_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) @Max(60_000) BUILTIN_TOOL_TIMEOUT_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(96) @Max(4096) BUILTIN_TOOL_MEMORY_MB?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(16) BUILTIN_TOOL_WORKERS?: number;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(ALLOWED_HOSTS, {
    message: 'PLUGIN_ALLOWED_HOSTS must be comma-separated host or host:port entries ([::1]:8080)',
  })
  PLUGIN_ALLOWED_HOSTS?: string;
}

/** The `plugins` slice (docs/plugins.md). */
export interface PluginsConfig {
  /** PLUGIN_TOOL_TIMEOUT_MS: longest connect, `tools/list` or `tools/call` of an MCP server (default 15000). */
  toolTimeoutMs: number;
  /**
   * PLUGIN_ALLOWED_HOSTS: `host` or `host:port` entries (lower-cased) exempt from the SSRF
   * address rules and allowed over http; default none.
   */
  allowedHosts: string[];
  /**
   * BUILTIN_TOOL_TIMEOUT_MS: longest run of one built-in tool call, ms (default 2000). The
   * calculator's worker is terminated past it; other built-ins are no longer waited for.
   */
  builtinTimeoutMs: number;
  /**
   * BUILTIN_TOOL_MEMORY_MB: heap limit of each calculator worker (V8 old generation), MB
   * (default 128; mathjs itself takes about 60).
   */
  builtinMemoryMb: number;
  /** BUILTIN_TOOL_WORKERS: most calculator workers at once, started on demand (default 2). */
  builtinWorkers: number;
}

/** The `plugins` slice from validated variables. */
export function buildPluginsConfig(env: PluginsEnvironment): PluginsConfig {
  return {
    toolTimeoutMs: env.PLUGIN_TOOL_TIMEOUT_MS ?? 15_000,
    allowedHosts: list(env.PLUGIN_ALLOWED_HOSTS).map((h) => h.toLowerCase()),
    builtinTimeoutMs: env.BUILTIN_TOOL_TIMEOUT_MS ?? 2_000,
    builtinMemoryMb: env.BUILTIN_TOOL_MEMORY_MB ?? 128,
    builtinWorkers: env.BUILTIN_TOOL_WORKERS ?? 2,
  };
}

/** The `plugins` slice, read by its module with `@Inject(pluginsConfig.KEY)`. */
export const pluginsConfig = defineConfigSlice({
  name: 'plugins',
  environment: PluginsEnvironment,
  build: buildPluginsConfig,
});
