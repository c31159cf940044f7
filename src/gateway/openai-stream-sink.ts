import type { Response } from 'express';
import { type StreamSink, type ServerTiming, openStream } from '../ai';
import type { PresentedError } from '../common/errors/error-presenter';
import { openAiErrorBody } from './openai-error';
import { completionId, finishReason, usageOf } from './chat-completions.mapper';
import type { FinishReason, TokenUsage, ToolCall } from '../models/call.types';

/**
 * `stream: true` of /v1/chat/completions: `chat.completion.chunk` frames as OpenAI
 * sends them, less `usage: null` on every chunk (a first chunk with the role, one per text delta,
 * two per tool call (`delta.tool_calls`), one with `finish_reason`, with
 * `stream_options.include_usage` one more with `usage` and our `cost` and empty `choices`),
 * then `data: [DONE]`. The stream opens with the first token, so every failure before it
 * answers with its HTTP status and an OpenAI error body; a failure after it is an `error`
 * frame, which OpenAI clients raise as an APIError.
 */
export class OpenAiStreamSink implements StreamSink {
  opened = false;
  private readonly id: string;
  private readonly created = Math.floor(Date.now() / 1000);
  /** Tool calls streamed so far (the next one's `index`). */
  private calls = 0;

  constructor(
    private readonly res: Response,
    /** The requested model; the answering one (a fallback's) once the first chunk came. */
    private model: string,
    private readonly options: {
      includeUsage: boolean;
      maxTokens?: number;
      store: boolean;
      /** The call's generation id, the chunks' `id` (`chatcmpl-<hex>`). */
      generationId?: string;
    },
    private readonly present: (err: unknown) => PresentedError,
  ) {
    this.id = completionId(options.generationId);
  }

  admitted(): void {}

  start(chatId: string, timing: ServerTiming, modelId?: string): void {
    if (modelId) this.model = modelId;
    openStream(
      this.res,
      'text/event-stream; charset=utf-8',
      timing,
      this.options.store ? chatId : undefined,
    );
    this.opened = true;
    this.chunk([
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
    ]);
  }

  text(delta: string): void {
    this.chunk([{ index: 0, delta: { content: delta }, logprobs: null, finish_reason: null }]);
  }

  /**
   * A whole tool call, as OpenAI streams one: a piece with its `index`, `id`, `type` and
   * `function.name` (arguments `''`), then its arguments' JSON text.
   */
  toolCall(call: ToolCall): void {
    const index = this.calls++;
    const piece = (toolCall: object) =>
      this.chunk([
        {
          index: 0,
          delta: { tool_calls: [{ index, ...toolCall }] },
          logprobs: null,
          finish_reason: null,
        },
      ]);
    piece({ id: call.id, type: 'function', function: { name: call.name, arguments: '' } });
    piece({ function: { arguments: JSON.stringify(call.arguments) } });
  }

  done(result: {
    usage: TokenUsage;
    cost: number;
    chatId: string;
    finishReason: FinishReason;
  }): void {
    const reason = finishReason(result.usage, this.options.maxTokens, result.finishReason);
    this.chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: reason }]);
    if (this.options.includeUsage) {
      this.chunk([], { usage: usageOf(result.usage), cost: result.cost });
    }
    this.write('[DONE]');
    this.res.end();
  }

  error(err: unknown): void {
    this.write(JSON.stringify(openAiErrorBody(this.present(err), null)));
    this.res.end();
  }

  private chunk(choices: object[], extra?: object): void {
    this.write(
      JSON.stringify({
        id: this.id,
        object: 'chat.completion.chunk',
        created: this.created,
        model: this.model,
        choices,
        ...extra,
      }),
    );
  }

  private write(data: string): void {
    if (!this.res.writableEnded) this.res.write(`data: ${data}\n\n`);
  }
}
