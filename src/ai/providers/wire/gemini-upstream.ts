// Our request TO the Gemini upstream (generateContent) and its tool calls back.
import {
  type Content,
  type FunctionDeclaration,
  FunctionCallingConfigMode,
  type GenerateContentConfig,
  type Part,
  type Tool,
} from '@google/genai';
import type { ClientTools, ResponseFormat } from '../client-tools';
import type { ProviderMessage } from '../model-provider';
import { newToolCallId } from './tool-arguments';
import type { FinishReason, ToolCall, ToolDefinition } from '../../../models/call.types';

/**
 * Our messages as Gemini `contents`, without the system ones: assistant turns as role
 * `model`; images as `inlineData` parts after the text; an assistant's tool calls as
 * `functionCall` parts; consecutive tool results as one user turn of `functionResponse` parts
 * (`{output}` or `{error}`, as Gemini's docs put it).
 */
export function geminiContents(messages: ProviderMessage[]): Content[] {
  const out: Content[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'tool') {
      const part: Part = {
        functionResponse: {
          id: m.toolCall?.id,
          name: m.toolCall?.name ?? '',
          response: m.toolCall?.ok === false ? { error: m.content } : { output: m.content },
        },
      };
      const last = out[out.length - 1];
      if (last?.role === 'user' && last.parts?.every((p) => p.functionResponse))
        last.parts.push(part);
      else out.push({ role: 'user', parts: [part] });
      continue;
    }
    const parts: Part[] = m.content ? [{ text: m.content }] : [];
    for (const image of m.images ?? [])
      parts.push({ inlineData: { mimeType: image.mediaType, data: image.data } });
    for (const c of m.toolCalls ?? [])
      parts.push({ functionCall: { id: c.id, name: c.name, args: c.arguments } });
    out.push({
      role: m.role === 'assistant' ? 'model' : 'user',
      parts: parts.length ? parts : [{ text: '' }],
    });
  }
  return out;
}

/** Tool definitions as one Gemini tool of function declarations (JSON Schema parameters). */
export function geminiTools(tools: ToolDefinition[] | undefined): Tool[] | undefined {
  if (!tools?.length) return undefined;
  const functionDeclarations: FunctionDeclaration[] = tools.map((t) => ({
    name: t.name,
    description: t.description,
    parametersJsonSchema: t.parameters,
  }));
  return [{ functionDeclarations }];
}

/**
 * The `functionCall` parts of a response or chunk (Gemini sends each call whole). Gemini may
 * send no id; one is made up so results can name their call.
 */
export function geminiToolCalls(parts: Part[] | undefined): ToolCall[] {
  return (parts ?? []).flatMap((p) =>
    p.functionCall?.name
      ? [
          {
            id: p.functionCall.id || newToolCallId(),
            name: p.functionCall.name,
            arguments: p.functionCall.args ?? {},
          },
        ]
      : [],
  );
}

/**
 * The client tools' rules and the answer format as Gemini config fields:
 * `toolConfig.functionCallingConfig` (mode `AUTO`, `ANY` for `required` or one name, which
 * `allowedFunctionNames` then lists, `NONE`) and, for a format, `responseMimeType:
 * application/json` with the schema as `responseJsonSchema` (JSON Schema, as the tools'
 * parameters are sent). Gemini has no switch for parallel calls: see `singleCall`.
 */
export function geminiClientToolConfig(
  clientTools: ClientTools | undefined,
  format: ResponseFormat | undefined,
): Pick<GenerateContentConfig, 'toolConfig' | 'responseMimeType' | 'responseJsonSchema'> {
  const choice = clientTools?.toolChoice;
  const mode =
    choice === undefined || choice === 'auto'
      ? FunctionCallingConfigMode.AUTO
      : choice === 'none'
        ? FunctionCallingConfigMode.NONE
        : FunctionCallingConfigMode.ANY;
  return {
    ...(clientTools
      ? {
          toolConfig: {
            functionCallingConfig: {
              mode,
              ...(typeof choice === 'object' ? { allowedFunctionNames: [choice.name] } : {}),
            },
          },
        }
      : {}),
    ...(format
      ? {
          responseMimeType: 'application/json',
          ...(format.type === 'json_schema' ? { responseJsonSchema: format.schema } : {}),
        }
      : {}),
  };
}

/** The calls a reply may return: only the first when the client allows one call per turn. */
export function singleCall(calls: ToolCall[], clientTools: ClientTools | undefined): ToolCall[] {
  return clientTools?.parallelToolCalls === false ? calls.slice(0, 1) : calls;
}

/** Gemini's `finishReason` in our terms: a reply with function calls is `tool_calls`. */
export function geminiFinishReason(reason: string | undefined, calls: number): FinishReason {
  if (calls > 0) return 'tool_calls';
  return reason === 'MAX_TOKENS' ? 'length' : 'stop';
}
