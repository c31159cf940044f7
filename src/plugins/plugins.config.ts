import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { emptyToUndefined, featureEnvironment, list, toInt } from '../config/feature-environment';

// One host (a name, an IPv4 address or a bracketed IPv6 address) with an optional port.
const HOST_ENTRY = String.raw`(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::\d{1,5})?`;
const ALLOWED_HOSTS = new RegExp(String.raw`^\s*${HOST_ENTRY}(?:\s*,\s*${HOST_ENTRY})*\s*$`);

/** MCP plugin calls: their timeout and the hosts exempt from the SSRF address rules. */
export class PluginsEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) @Max(600_000) PLUGIN_TOOL_TIMEOUT_MS?: number;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(ALLOWED_HOSTS, {
    message: 'PLUGIN_ALLOWED_HOSTS must be comma-separated host or host:port entries ([::1]:8080)',
  })
  PLUGIN_ALLOWED_HOSTS?: string;
}

/** The `plugins` slice of AppConfig (docs/plugins.md). */
export interface PluginsConfig {
  /** PLUGIN_TOOL_TIMEOUT_MS: longest connect, `tools/list` or `tools/call` of an MCP server (default 15000). */
  toolTimeoutMs: number;
  /**
   * PLUGIN_ALLOWED_HOSTS: `host` or `host:port` entries (lower-cased) exempt from the SSRF
   * address rules and allowed over http; default none.
   */
  allowedHosts: string[];
}

/** The `plugins` slice from validated variables. */
export function buildPluginsConfig(env: PluginsEnvironment): PluginsConfig {
  return {
    toolTimeoutMs: env.PLUGIN_TOOL_TIMEOUT_MS ?? 15_000,
    allowedHosts: list(env.PLUGIN_ALLOWED_HOSTS).map((h) => h.toLowerCase()),
  };
}

/** The `plugins` namespace, built alone from process.env (AppModule registers it from AppConfig). */
export const pluginsConfig = registerAs('plugins', (): PluginsConfig =>
  buildPluginsConfig(featureEnvironment(PluginsEnvironment)),
);
