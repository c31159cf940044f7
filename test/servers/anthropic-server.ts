import type { ServerResponse } from 'node:http';
import {
  type RecordedRequest,
  replyText,
  type SseFrame,
  type WireReply,
  WireTestServer,
} from './wire-server';
import { anthropicAuto } from './auto-reply';

export interface AnthropicReply extends WireReply {
  /** Reported usage (default 10 input + 20 output tokens). */
  usage?: {
    input_tokens: number;
    /** Includes `thinking_tokens`, as the API counts them. */
    output_tokens: number;
    /** Extended thinking: a thinking block precedes the text and usage reports this count. */
    thinking_tokens?: number;
    /** Input tokens read from the prompt cache (default 0). */
    cache_read_input_tokens?: number;
    /** Input tokens written to the prompt cache (default 0). */
    cache_creation_input_tokens?: number;
  };
  /**
   * Streamed replies: the cumulative `output_tokens` of successive `message_delta` events
   * (default one event with `usage.output_tokens`). The last value is the real count.
   */
  outputTokenSteps?: number[];
}

/**
 * A local server speaking Anthropic's Messages wire protocol (`POST /v1/messages`) for the real
 * `@anthropic-ai/sdk` (base URL without `/v1`). JSON replies, and with `stream: true` SSE events
 * `message_start` (input tokens, output 1), `content_block_start`, `ping`,
 * `content_block_delta` per text piece, `content_block_stop`, `message_delta` (cumulative
 * output tokens), `message_stop`. Accepts `x-api-key` or `Authorization: Bearer` (SDK 1.12 sends
 * the latter); neither is a 401.
 */
export class AnthropicTestServer extends WireTestServer<AnthropicReply> {
  protected autoReply(req: RecordedRequest): Partial<AnthropicReply> {
    return anthropicAuto(req.body, this.cachedTokens);
  }

  protected async handle(req: RecordedRequest, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || req.path !== '/v1/messages') {
      return this.sendJson(res, 404, errorBody(404));
    }
    const key = req.headers['x-api-key'] || /^Bearer \S+/.test(req.headers.authorization ?? '');
    const status = key ? this.reply.status : 401;
    if (status) return this.sendError(res, status, errorBody(status));

    const usage = { input_tokens: 10, output_tokens: 20, ...this.reply.usage };
    // A structured answer comes as the input of the tool the request forces (Anthropic has no
    // response format); without a forced tool it is plain text.
    const forced = req.body?.tool_choice?.type === 'tool' ? req.body.tool_choice.name : undefined;
    const asTool = this.reply.json && forced;
    const text = asTool ? '' : replyText(this.reply);
    const called = [
      ...(this.reply.toolCalls ?? []),
      ...(asTool ? [{ name: forced as string, arguments: this.reply.json! }] : []),
    ];
    const uses = called.map((c: { id?: string; name: string; arguments: object }, i) => ({
      type: 'tool_use' as const,
      id: c.id ?? `toolu_test_${this.requests.length}_${i}`,
      name: c.name,
      input: c.arguments,
    }));
    const stopReason = uses.length ? 'tool_use' : 'end_turn';
    const message = {
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      model: req.body?.model,
      stop_reason: stopReason,
      stop_sequence: null,
    };
    const inputUsage = {
      input_tokens: usage.input_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
      service_tier: 'standard',
    };
    const thinking = usage.thinking_tokens !== undefined;
    const details = thinking
      ? { output_tokens_details: { thinking_tokens: usage.thinking_tokens } }
      : {};
    const thinkingBlock = { type: 'thinking', thinking: 'Let me think…', signature: 'sig-test' };
    if (!req.body?.stream) {
      return this.sendJson(res, 200, {
        ...message,
        content: [
          ...(thinking ? [thinkingBlock] : []),
          ...(text || !uses.length ? [{ type: 'text', text, citations: null }] : []),
          ...uses,
        ],
        usage: { ...inputUsage, output_tokens: usage.output_tokens, ...details },
      });
    }

    const event = (type: string, data: object): string =>
      `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const steps = this.reply.outputTokenSteps ?? [usage.output_tokens];
    const frames: SseFrame[] = [
      {
        data: event('message_start', {
          message: {
            ...message,
            content: [],
            stop_reason: null,
            usage: { ...inputUsage, output_tokens: 1 },
          },
        }),
      },
      ...(thinking
        ? [
            {
              data: event('content_block_start', {
                index: 0,
                content_block: { type: 'thinking', thinking: '', signature: '' },
              }),
            },
            {
              data: event('content_block_delta', {
                index: 0,
                delta: { type: 'thinking_delta', thinking: thinkingBlock.thinking },
              }),
            },
            { data: event('content_block_stop', { index: 0 }) },
          ]
        : []),
      {
        data: event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      },
      { data: event('ping', {}) },
      ...this.split(text).map((piece) => ({
        data: event('content_block_delta', {
          index: 0,
          delta: { type: 'text_delta', text: piece },
        }),
        text: true,
      })),
      { data: event('content_block_stop', { index: 0 }) },
      // Each tool_use block: started with empty input, the input's JSON in two pieces, stopped.
      ...uses.flatMap((use, i) => {
        const index = i + 1;
        const json = JSON.stringify(use.input);
        const half = Math.ceil(json.length / 2);
        return [
          { data: event('content_block_start', { index, content_block: { ...use, input: {} } }) },
          ...[json.slice(0, half), json.slice(half)].map((partial_json) => ({
            data: event('content_block_delta', {
              index,
              delta: { type: 'input_json_delta', partial_json },
            }),
          })),
          { data: event('content_block_stop', { index }), callDone: true },
        ];
      }),
      ...steps.map((output_tokens) => ({
        data: event('message_delta', {
          delta: { stop_reason: stopReason, stop_sequence: null },
          usage: { output_tokens, ...details },
        }),
      })),
      { data: event('message_stop', {}) },
    ];
    await this.sendSse(res, frames);
  }
}

/** Anthropic's error body for `status`. */
function errorBody(status: number) {
  const [type, message] =
    status === 401
      ? ['authentication_error', 'invalid x-api-key']
      : status === 404
        ? ['not_found_error', 'Not found']
        : status === 429
          ? ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit']
          : status === 529
            ? ['overloaded_error', 'Overloaded']
            : ['api_error', 'Internal server error'];
  return { type: 'error', error: { type, message }, request_id: 'req_test' };
}
