// The options of a Responses request (tools, tool_choice, text.format, metadata) as ours, and
// the refusals the wire mappers share.
import type { ResponseFormat, ToolChoice } from '../ai';
import { AppError } from '../common/errors/app-error';
import { ModelsErrorCode } from '../models/models.errors';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import { MAX_TOOLS } from './dto/responses.dto';
import type { ToolDefinition } from '../models/call.types';

/** A tool's (and a json_schema format's) name, as all three providers accept it. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export const given = (v: unknown): boolean => v !== undefined && v !== null;
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** VALIDATION_FAILED (400) naming `property` as OpenAI's `param`. */
export const invalid = (property: string, message: string) =>
  new ValidationFailedError([{ property, constraint: 'openAiWire', message }]);
/** UNSUPPORTED_PARAMETER (400) naming `param`. */
export const unsupported = (param: string, message: string) =>
  new AppError(ModelsErrorCode.UNSUPPORTED_PARAMETER, message, { param });

/** `tools` as ours: function tools only. */
export function toolsOf(raw: unknown): ToolDefinition[] {
  if (!given(raw)) return [];
  if (!Array.isArray(raw)) throw invalid('tools', 'tools must be an array');
  if (raw.length > MAX_TOOLS) throw invalid('tools', `tools has more than ${MAX_TOOLS} items`);
  return raw.map((tool: unknown, i) => {
    if (!isObject(tool)) throw invalid(`tools[${i}]`, `tools[${i}] must be an object`);
    if (tool.type !== 'function')
      throw unsupported(`tools[${i}].type`, `tools of type ${String(tool.type)} are not supported`);
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
      throw invalid(`tools[${i}].name`, `tools[${i}].name must match ${TOOL_NAME.source}`);
    if (given(tool.description) && typeof tool.description !== 'string')
      throw invalid(`tools[${i}].description`, 'description must be a string');
    if (given(tool.parameters) && !isObject(tool.parameters))
      throw invalid(`tools[${i}].parameters`, 'parameters must be a JSON Schema object');
    return {
      name: tool.name,
      description: (tool.description as string | undefined) ?? '',
      parameters: (tool.parameters as Record<string, unknown> | undefined) ?? {
        type: 'object',
        properties: {},
      },
    };
  });
}

/** `tool_choice` as ours; a function it names must be among `tools`. */
export function toolChoiceOf(raw: unknown, tools: ToolDefinition[]): ToolChoice | undefined {
  if (!given(raw)) return undefined;
  if (raw === 'auto' || raw === 'none' || raw === 'required') return raw;
  if (isObject(raw) && raw.type === 'function' && typeof raw.name === 'string') {
    if (!tools.some((t) => t.name === raw.name))
      throw invalid('tool_choice', `tool_choice names ${raw.name}, which is not in tools`);
    return { name: raw.name };
  }
  throw unsupported('tool_choice', 'tool_choice must be auto, none, required or a function');
}

/** `text.format` as ours; `text` (the default) is none. */
export function responseFormatOf(text: unknown): ResponseFormat | undefined {
  if (!given(text)) return undefined;
  if (!isObject(text)) throw invalid('text', 'text must be an object');
  const format = text.format;
  if (!given(format)) return undefined;
  if (!isObject(format)) throw invalid('text.format', 'text.format must be an object');
  if (format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type !== 'json_schema')
    throw unsupported(
      'text.format.type',
      'text.format.type must be text, json_object or json_schema',
    );
  if (typeof format.name !== 'string' || !TOOL_NAME.test(format.name))
    throw invalid('text.format.name', `text.format.name must match ${TOOL_NAME.source}`);
  if (!isObject(format.schema))
    throw invalid('text.format.schema', 'text.format.schema must be an object');
  if (given(format.strict) && typeof format.strict !== 'boolean')
    throw invalid('text.format.strict', 'text.format.strict must be a boolean');
  return {
    type: 'json_schema',
    name: format.name,
    schema: format.schema,
    ...(given(format.strict) ? { strict: format.strict as boolean } : {}),
  };
}

/** Checks `metadata`: at most 16 string values of at most 512 characters, keys at most 64. */
export function checkMetadata(metadata: unknown): void {
  if (!given(metadata)) return;
  const entries = Object.entries(metadata as Record<string, unknown>);
  if (
    entries.length > 16 ||
    entries.some(([k, v]) => k.length > 64 || typeof v !== 'string' || v.length > 512)
  )
    throw invalid(
      'metadata',
      'metadata takes up to 16 string values (keys ≤ 64, values ≤ 512 characters)',
    );
}
