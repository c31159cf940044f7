import { registerDecorator, type ValidationArguments } from 'class-validator';

/** Most headers a plugin may carry. */
export const MAX_PLUGIN_HEADERS = 20;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
// Set by the MCP transport or by HTTP itself; a plugin cannot override them.
const RESERVED = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

/** Why `value` is not a valid header map, or undefined when it is. */
export function headersProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'headers must be an object of header names to string values';
  const entries = Object.entries(value);
  if (entries.length > MAX_PLUGIN_HEADERS)
    return `headers may name at most ${MAX_PLUGIN_HEADERS} headers`;
  const seen = new Set<string>();
  for (const [name, v] of entries) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) return `headers: "${name}" is not a valid header name`;
    if (RESERVED.has(lower)) return `headers: ${name} is set by the MCP transport`;
    if (seen.has(lower)) return `headers: ${name} is given twice`;
    seen.add(lower);
    // Values are not echoed: they may be secrets.
    if (typeof v !== 'string' || v.length > 4096 || /[\r\n\0]/.test(v))
      return `headers: the value of ${name} must be a string of at most 4096 characters on one line`;
  }
  return undefined;
}

/** A map of extra HTTP headers for an MCP server (names are tokens; values one-line strings). */
export function IsPluginHeaders() {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isPluginHeaders',
      target: object.constructor,
      propertyName,
      validator: {
        validate: (value: unknown) => headersProblem(value) === undefined,
        defaultMessage: (args: ValidationArguments) =>
          headersProblem(args.value) ?? 'headers are invalid',
      },
    });
}
