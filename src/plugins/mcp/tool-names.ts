import { createHash } from 'node:crypto';

/** The shape every provider accepts for a tool name. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;

/**
 * The name the model sees for tool `tool` of MCP plugin `plugin`: `<plugin>__<tool>`, with every
 * character outside [a-zA-Z0-9_-] replaced by `_`. When that is longer than 64 characters, or
 * the tool's name had to be changed, the head is kept and 8 hex characters of the SHA-256 of the
 * tool's real name end it, so distinct tools keep distinct names (`plugin` is at most 32
 * characters of [a-z0-9_-], see PLUGIN_NAME).
 */
export function exposedToolName(plugin: string, tool: string): string {
  const clean = tool.replace(/[^a-zA-Z0-9_-]/g, '_');
  const full = `${plugin}__${clean}`;
  if (full.length <= MAX && clean === tool && tool.length > 0) return full;
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8);
  return `${full.slice(0, MAX - hash.length - 1)}_${hash}`;
}
