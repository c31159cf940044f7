import { schemaInstance } from './schema-instance';
import type { AnthropicReply } from './anthropic-server';
import type { GeminiReply } from './gemini-server';
import type { OpenAiReply } from './openai-server';
import { DEFAULT_TEXT, type WireReply } from './wire-server';

/**
 * What the local model servers answer with `auto` on (`npm run mock:openai`), decided from the
 * request alone, the same way every time:
 * - tools offered, not refused (`none`), and the last turn is not a tool result: one call of the
 *   named tool of a forced choice, else of the first tool, its arguments the first valid value
 *   of the tool's parameter schema (`schemaInstance`);
 * - else a JSON answer asked for: the first valid value of its schema (`{"text": …}` for plain
 *   JSON mode);
 * - else the default text. `cached` prompt tokens are reported on top of 10 fresh ones.
 */

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : { value: v };
const call = (name: string, schema: unknown): WireReply['toolCalls'] => [
  { name, arguments: asObject(schemaInstance(schema ?? {})) },
];

/** Chat Completions: `tools`, `tool_choice`, `response_format`, `tool` messages. */
export function openAiAuto(body: any, cached: number): Partial<OpenAiReply> {
  const usage = cached
    ? {
        usage: {
          prompt_tokens: 10 + cached,
          completion_tokens: 20,
          prompt_tokens_details: { cached_tokens: cached },
        },
      }
    : {};
  const tools: any[] = (body?.tools ?? []).filter((t: any) => t?.type === 'function');
  const choice = body?.tool_choice;
  const lastRole = body?.messages?.at(-1)?.role;
  if (tools.length && choice !== 'none' && lastRole !== 'tool') {
    const named = typeof choice === 'object' ? choice?.function?.name : undefined;
    const tool = tools.find((t) => t.function?.name === named) ?? tools[0];
    return { ...usage, toolCalls: call(tool.function.name, tool.function.parameters) };
  }
  const format = body?.response_format;
  if (format?.type === 'json_schema') {
    return { ...usage, json: asObject(schemaInstance(format.json_schema?.schema ?? {})) };
  }
  if (format?.type === 'json_object') return { ...usage, json: { text: DEFAULT_TEXT } };
  return usage;
}

/** Messages: `tools` (`input_schema`), `tool_choice`, `tool_result` blocks. */
export function anthropicAuto(body: any, cached: number): Partial<AnthropicReply> {
  const usage = cached
    ? { usage: { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: cached } }
    : {};
  const tools: any[] = (body?.tools ?? []).filter((t: any) => t?.name && t?.input_schema);
  const choice = body?.tool_choice;
  const last = body?.messages?.at(-1)?.content;
  const answered = Array.isArray(last) && last.some((b: any) => b?.type === 'tool_result');
  if (tools.length && choice?.type !== 'none' && !answered) {
    const named = choice?.type === 'tool' ? choice.name : undefined;
    const tool = tools.find((t) => t.name === named) ?? tools[0];
    return { ...usage, toolCalls: call(tool.name, tool.input_schema) };
  }
  return usage;
}

/** Gemini: `functionDeclarations`, `functionCallingConfig`, `functionResponse` parts, JSON mode. */
export function geminiAuto(body: any, cached: number): Partial<GeminiReply> {
  const usage = cached
    ? {
        usage: {
          promptTokenCount: 10 + cached,
          candidatesTokenCount: 20,
          cachedContentTokenCount: cached,
        },
      }
    : {};
  const declared: any[] = (body?.tools ?? []).flatMap((t: any) => t?.functionDeclarations ?? []);
  const config = body?.toolConfig?.functionCallingConfig ?? {};
  const parts = body?.contents?.at(-1)?.parts ?? [];
  const answered = parts.some((p: any) => p?.functionResponse);
  if (declared.length && config.mode !== 'NONE' && !answered) {
    const named = config.allowedFunctionNames?.[0];
    const fn = declared.find((d) => d.name === named) ?? declared[0];
    return { ...usage, toolCalls: call(fn.name, fn.parametersJsonSchema ?? fn.parameters) };
  }
  const generation = body?.generationConfig ?? {};
  if (generation.responseMimeType === 'application/json') {
    const schema = generation.responseJsonSchema ?? generation.responseSchema;
    return { ...usage, json: schema ? asObject(schemaInstance(schema)) : { text: DEFAULT_TEXT } };
  }
  return usage;
}
