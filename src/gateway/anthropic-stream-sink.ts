import type { Response } from 'express';
import { type StreamSink, type ServerTiming, openStream } from '../ai';
import { anthropicErrorBody } from './anthropic-error';
import type { PresentedError } from '../common/errors/error-presenter';
import { anthropicUsageOf, messageId, stopReasonOf } from './anthropic-message.mapper';
import type { ToolCall } from '../models/call.types';

/**
 * `stream: true` of /v1/messages: server-sent events in Anthropic's order, each
 * `event: <type>\ndata: <json>\n\n`: `message_start` (the message with empty content, no
 * stop reason and usage so far: 0 tokens), then per content block `content_block_start`, its
 * deltas (`text_delta`; a tool call's arguments whole in one `input_json_delta`) and
 * `content_block_stop` (a `ping` after the first block's start), then `message_delta` (stop
 * reason, the whole usage and our `cost`) and `message_stop`. The stream opens with the first
 * token, so every failure before it answers with its HTTP status and Anthropic's error body; a
 * failure after it is an `error` event, which the Anthropic SDK raises as an APIError.
 */
export class AnthropicStreamSink implements StreamSink {
  opened = false;
  private readonly id: string;
  /** Index of the next content block. */
  private blocks = 0;
  /** True while a text block is open (deltas append to it). */
  private inText = false;

  constructor(
    private readonly res: Response,
    /** The requested model; the answering one (a fallback's) once the first chunk came. */
    private model: string,
    private readonly present: (err: unknown) => PresentedError,
    /** The call's generation id, the message's `id` (`msg_<hex>`). */
    generationId?: string,
  ) {
    this.id = messageId(generationId);
  }

  admitted(): void {}

  start(_chatId: string, timing: ServerTiming, modelId?: string): void {
    if (modelId) this.model = modelId;
    openStream(this.res, 'text/event-stream; charset=utf-8', timing);
    this.opened = true;
    this.event('message_start', {
      message: {
        id: this.id,
        type: 'message',
        role: 'assistant',
        model: this.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    });
  }

  text(delta: string): void {
    if (!delta) return;
    if (!this.inText) {
      this.startBlock({ type: 'text', text: '' });
      this.inText = true;
    }
    this.event('content_block_delta', {
      index: this.blocks - 1,
      delta: { type: 'text_delta', text: delta },
    });
  }

  toolCall(call: ToolCall): void {
    this.closeText();
    this.startBlock({ type: 'tool_use', id: call.id, name: call.name, input: {} });
    this.event('content_block_delta', {
      index: this.blocks - 1,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.arguments) },
    });
    this.event('content_block_stop', { index: this.blocks - 1 });
  }

  done(result: Parameters<StreamSink['done']>[0]): void {
    this.closeText();
    this.event('message_delta', {
      delta: { stop_reason: stopReasonOf(result.finishReason), stop_sequence: null },
      usage: anthropicUsageOf(result.usage),
      cost: result.cost,
    });
    this.event('message_stop', {});
    this.res.end();
  }

  error(err: unknown): void {
    this.event('error', anthropicErrorBody(this.present(err), null));
    this.res.end();
  }

  private startBlock(block: object): void {
    this.event('content_block_start', { index: this.blocks, content_block: block });
    if (this.blocks++ === 0) this.event('ping', {});
  }

  private closeText(): void {
    if (!this.inText) return;
    this.inText = false;
    this.event('content_block_stop', { index: this.blocks - 1 });
  }

  private event(type: string, body: object): void {
    if (this.res.writableEnded) return;
    this.res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`);
  }
}
