// The Chat Completions wire as the gateway serves it to clients: an OpenAI request IN to our
// GenerateDto, and our result OUT as an OpenAI completion (the upstream direction is
// ai/providers/wire/openai-upstream.ts).
import { randomUUID } from 'node:crypto';
import { MAX_STOP_LENGTH, MAX_STOP_SEQUENCES } from '../models/dto/model-parameters.dto';
import type { PlanOutputLimits } from '../ai';
import { AppError } from '../common/errors/app-error';
import { ModelsErrorCode } from '../models/models.errors';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import { assistantToolCalls, toolCallsOut, toolResult } from './chat-completions-tools';
import type {
  ChatCompletionDto,
  ChatCompletionRequestDto,
  CompletionFinishReason,
} from './dto/chat-completion.dto';
import type {
  CallRequest,
  FinishReason,
  MessageContent,
  MessagePart,
  TokenUsage,
  ToolCall,
} from '../models/call.types';

/** Fields of OpenAI's API we cannot honour, and the value each may take to mean "not used". */
const UNSUPPORTED: Record<string, (v: unknown) => boolean> = {
  n: (v) => v === 1,
  logprobs: (v) => v === false,
  top_logprobs: () => false,
  logit_bias: (v) => typeof v === 'object' && v !== null && Object.keys(v).length === 0,
  functions: (v) => Array.isArray(v) && v.length === 0,
  function_call: (v) => v === 'none',
  audio: () => false,
  modalities: (v) => Array.isArray(v) && v.length === 1 && v[0] === 'text',
  prediction: () => false,
  web_search_options: () => false,
  reasoning_effort: () => false,
};

/** A field the client sent with a value (OpenAI's SDKs may send `null` for "unset"). */
const given = (v: unknown): boolean => v !== undefined && v !== null;

const invalid = (property: string, message: string) =>
  new ValidationFailedError([{ property, constraint: 'openAiWire', message }]);

/**
 * A message's `content` as ours: a string stays one; parts become text parts (adjacent ones
 * joined) and image parts: `image_url` with a data URL or the URL of an upload of ours
 * (checked at admission, remote hosts refused, never fetched).
 */
function contentOf(content: unknown, at: string): MessageContent {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalid(at, `${at} must be a string or an array of parts`);
  const parts: MessagePart[] = [];
  content.forEach((part: { type?: unknown; text?: unknown; image_url?: { url?: unknown } }, i) => {
    if (part?.type === 'image_url') {
      if (typeof part.image_url?.url !== 'string')
        throw invalid(`${at}[${i}].image_url.url`, 'image_url.url must be a string');
      parts.push({ type: 'image', url: part.image_url.url });
      return;
    }
    if (part?.type !== 'text') {
      throw new AppError(
        ModelsErrorCode.UNSUPPORTED_PARAMETER,
        `${at}[${i}]: only text and image_url parts are supported`,
        { param: `${at}[${i}].type` },
      );
    }
    if (typeof part.text !== 'string') throw invalid(`${at}[${i}].text`, 'text must be a string');
    const last = parts.at(-1);
    if (last?.type === 'text') last.text += part.text;
    else if (part.text) parts.push({ type: 'text', text: part.text });
  });
  return parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts;
}

function stopOf(stop: unknown): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  const list = typeof stop === 'string' ? [stop] : stop;
  if (
    !Array.isArray(list) ||
    list.length > MAX_STOP_SEQUENCES ||
    list.some((s) => typeof s !== 'string' || s.length === 0 || s.length > MAX_STOP_LENGTH)
  )
    throw invalid(
      'stop',
      `stop must be a string or up to ${MAX_STOP_SEQUENCES} strings of 1–${MAX_STOP_LENGTH} characters`,
    );
  return list.length ? (list as string[]) : undefined;
}

/**
 * The output limits of a completion: the caller's plan, a refusal naming the field the client
 * used (`max_completion_tokens`, else `max_tokens`).
 */
export function outputLimitsOf(req: ChatCompletionRequestDto): PlanOutputLimits {
  return {
    by: 'plan',
    param: given(req.max_completion_tokens) ? 'max_completion_tokens' : 'max_tokens',
  };
}

/**
 * An OpenAI Chat Completions request as our GenerateDto. Throws
 * UNSUPPORTED_PARAMETER (400, `param` named) for OpenAI fields we cannot honour, and
 * VALIDATION_FAILED (400) for content that is neither a string nor text parts, or empty, and
 * (as OpenAI does) for `max_tokens` and `max_completion_tokens` together (`param: max_tokens`).
 */
export function toGenerateDto(req: ChatCompletionRequestDto): CallRequest {
  for (const [field, harmless] of Object.entries(UNSUPPORTED)) {
    const value = (req as unknown as Record<string, unknown>)[field];
    if (value !== undefined && value !== null && !harmless(value)) {
      throw new AppError(ModelsErrorCode.UNSUPPORTED_PARAMETER, `${field} is not supported`, {
        param: field,
      });
    }
  }
  if (given(req.max_tokens) && given(req.max_completion_tokens)) {
    throw new ValidationFailedError([
      {
        property: 'max_tokens',
        constraint: 'notWith',
        message:
          "Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported.",
      },
    ]);
  }
  const calls = new Map<string, ToolCall>();
  const messages = req.messages.map((m, i): CallRequest['messages'][number] => {
    const at = `messages[${i}]`;
    const withCalls = m.role === 'assistant' && !!m.tool_calls?.length;
    if (withCalls || m.role === 'tool') {
      const content = given(m.content) ? contentOf(m.content, `${at}.content`) : '';
      if (typeof content !== 'string') throw invalid(`${at}.content`, `${at}.content must be text`);
      if (m.role === 'tool') return toolResult(at, m.tool_call_id, content, calls);
      const message = assistantToolCalls(content, m.tool_calls!);
      for (const call of message.toolCalls) calls.set(call.id, call);
      return message;
    }
    const content = contentOf(m.content, `${at}.content`);
    if (!content.length) throw invalid(`${at}.content`, `${at}.content is empty`);
    const role = m.role === 'developer' ? 'system' : (m.role as 'system' | 'user' | 'assistant');
    return { role, content };
  });
  return {
    modelId: req.model,
    messages,
    maxTokens: req.max_completion_tokens ?? req.max_tokens ?? undefined,
    temperature: req.temperature,
    topP: req.top_p,
    presencePenalty: req.presence_penalty,
    frequencyPenalty: req.frequency_penalty,
    stop: stopOf(req.stop),
  };
}

/** OpenAI's usage object for our usage; the token details only when reported. */
export function usageOf(u: TokenUsage) {
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    ...(u.cachedTokens !== undefined
      ? { prompt_tokens_details: { cached_tokens: u.cachedTokens } }
      : {}),
    ...(u.reasoningTokens !== undefined
      ? { completion_tokens_details: { reasoning_tokens: u.reasoningTokens } }
      : {}),
  };
}

/**
 * OpenAI's `finish_reason`: `tool_calls` when the model called tools, `length` when the
 * provider says so or the reply used every token allowed, else `stop`.
 */
export function finishReason(
  u: TokenUsage,
  maxTokens: number | undefined,
  reason: FinishReason = 'stop',
): CompletionFinishReason {
  if (reason !== 'stop') return reason;
  return maxTokens !== undefined && u.completionTokens >= maxTokens ? 'length' : 'stop';
}

/** A completion id in OpenAI's style: `chatcmpl-` and the generation id's 32 hex digits. */
export const completionId = (generationId: string = randomUUID()) =>
  `chatcmpl-${generationId.replaceAll('-', '')}`;

/** The whole `chat.completion` answer; `content` is null when the model only called tools. */
export function completionOf(
  model: string,
  result: {
    text: string;
    usage: TokenUsage;
    cost: number;
    finishReason: FinishReason;
    /** The call's generation id, the answer's `id` (`chatcmpl-<hex>`); a random one when absent. */
    generationId?: string;
  },
  toolCalls: ToolCall[] | undefined,
  maxTokens: number | undefined,
  chatId?: string,
): ChatCompletionDto {
  const { text, usage, cost } = result;
  const calls = toolCalls?.length ? { tool_calls: toolCallsOut(toolCalls) } : {};
  return {
    id: completionId(result.generationId),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: calls.tool_calls && !text ? null : text,
          refusal: null,
          ...calls,
        },
        logprobs: null,
        finish_reason: finishReason(usage, maxTokens, result.finishReason),
      },
    ],
    usage: usageOf(usage),
    cost,
    ...(chatId ? { chat_id: chatId } : {}),
  };
}
