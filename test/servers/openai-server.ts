import type { ServerResponse } from 'node:http';
import {
  type RecordedRequest,
  replyText,
  type SseFrame,
  type WireReply,
  WireTestServer,
} from './wire-server';
import { openAiAuto } from './auto-reply';
import { hashedEmbedding } from './embeddings';

export type { RecordedRequest } from './wire-server';

export interface OpenAiReply extends WireReply {
  /** Reported usage (default 10 prompt + 20 completion tokens); `null` sends no usage at all. */
  usage?: {
    prompt_tokens: number;
    /** Reasoning models: includes `completion_tokens_details.reasoning_tokens`. */
    completion_tokens: number;
    completion_tokens_details?: { reasoning_tokens: number };
    /** Of prompt_tokens, those read from the prompt cache. */
    prompt_tokens_details?: { cached_tokens: number };
  } | null;
  /** `/v1/embeddings`: the `usage.prompt_tokens` reported (default ceil(characters / 4) per input). */
  embeddingTokens?: number;
}

/**
 * A local server speaking OpenAI's chat-completions wire protocol (`POST /v1/chat/completions`)
 * and its embeddings protocol (`POST /v1/embeddings`),
 * so the real `openai` SDK can talk to it through OPENAI_BASE_URL. JSON replies, and with
 * `stream: true` SSE `data: {chunk}` frames: a role chunk, one chunk per text piece, a
 * `finish_reason` chunk, a usage chunk with empty `choices` when `stream_options.include_usage`,
 * then `data: [DONE]`. Needs `Authorization: Bearer <key>` (else 401). Set `reply` per test;
 * `requests` records what arrived.
 */
export class OpenAiTestServer extends WireTestServer<OpenAiReply> {
  protected autoReply(req: RecordedRequest): Partial<OpenAiReply> {
    return openAiAuto(req.body, this.cachedTokens);
  }

  protected baseUrl(origin: string): string {
    return `${origin}/v1`;
  }

  protected async handle(req: RecordedRequest, res: ServerResponse): Promise<void> {
    if (req.method === 'POST' && req.path === '/v1/embeddings') return this.embeddings(req, res);
    if (req.method !== 'POST' || req.path !== '/v1/chat/completions') {
      return this.sendJson(res, 404, {
        error: { message: 'not found', type: 'invalid_request_error' },
      });
    }
    const status = /^Bearer \S+/.test(req.headers.authorization ?? '') ? this.reply.status : 401;
    if (status) return this.sendError(res, status, errorBody(status));

    const { usage: configured } = this.reply;
    const text = replyText(this.reply);
    const calls = (this.reply.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_test_${this.requests.length}_${i}`,
      type: 'function' as const,
      function: { name: c.name, arguments: JSON.stringify(c.arguments) },
    }));
    const finish = calls.length ? 'tool_calls' : 'stop';
    const usage =
      configured === null
        ? undefined
        : { ...(configured ?? { prompt_tokens: 10, completion_tokens: 20 }), total_tokens: 0 };
    if (usage) usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    const base = {
      id: 'chatcmpl-test',
      created: Math.floor(Date.now() / 1000),
      model: req.body?.model,
      system_fingerprint: 'fp_test',
    };
    if (!req.body?.stream) {
      return this.sendJson(res, 200, {
        ...base,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: calls.length && !text ? null : text,
              ...(calls.length ? { tool_calls: calls } : {}),
            },
            finish_reason: finish,
          },
        ],
        ...(usage ? { usage } : {}),
      });
    }

    const includeUsage = req.body?.stream_options?.include_usage === true;
    const chunk = (choices: unknown[], extra: object = {}): string =>
      `data: ${JSON.stringify({
        ...base,
        object: 'chat.completion.chunk',
        choices,
        ...(includeUsage ? { usage: null } : {}),
        ...extra,
      })}\n\n`;
    const choice = (delta: object, finish: string | null = null) => ({
      index: 0,
      delta,
      finish_reason: finish,
    });
    const frames: SseFrame[] = [
      { data: chunk([choice({ role: 'assistant', content: '' })]) },
      ...(text ? this.split(text) : []).map((piece) => ({
        data: chunk([choice({ content: piece })]),
        text: true,
      })),
      // Each call: id, type and name first, then its arguments' JSON text in two pieces.
      ...calls.flatMap((c, index) => {
        const args = c.function.arguments;
        const half = Math.ceil(args.length / 2);
        const delta = (d: object) => ({ data: chunk([choice({ tool_calls: [{ index, ...d }] })]) });
        return [
          delta({ id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }),
          delta({ function: { arguments: args.slice(0, half) } }),
          { ...delta({ function: { arguments: args.slice(half) } }), callDone: true },
        ];
      }),
      { data: chunk([choice({}, finish)]) },
    ];
    if (includeUsage && usage) frames.push({ data: chunk([], { usage }) });
    frames.push({ data: 'data: [DONE]\n\n' });
    await this.sendSse(res, frames);
  }

  /**
   * `POST /v1/embeddings` (float encoding): one hashed bag-of-words vector per input, of the
   * requested `dimensions` (default 64), usage counting ceil(characters / 4) per input.
   */
  private embeddings(req: RecordedRequest, res: ServerResponse): void {
    const status = /^Bearer \S+/.test(req.headers.authorization ?? '') ? this.reply.status : 401;
    if (status) return this.sendError(res, status, errorBody(status));
    const input: string[] = Array.isArray(req.body?.input) ? req.body.input : [req.body?.input];
    const dimensions = Number(req.body?.dimensions ?? 64);
    const tokens =
      this.reply.embeddingTokens ??
      input.reduce((n, t) => n + Math.ceil(Array.from(String(t)).length / 4), 0);
    this.sendJson(res, 200, {
      object: 'list',
      data: input.map((text, index) => ({
        object: 'embedding',
        index,
        embedding: hashedEmbedding(String(text), dimensions),
      })),
      model: req.body?.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }
}

/** OpenAI's error body for `status` (the 401 one echoes a masked key, as OpenAI's does). */
function errorBody(status: number) {
  if (status === 401) {
    return {
      error: {
        message:
          'Incorrect API key provided: sk-te***al. You can find your API key at https://platform.openai.com/account/api-keys.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    };
  }
  if (status === 429) {
    return {
      error: {
        message: 'Rate limit reached for requests. Please try again in 2s.',
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    };
  }
  return {
    error: {
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
      param: null,
      code: null,
    },
  };
}
