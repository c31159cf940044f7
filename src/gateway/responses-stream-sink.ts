import type { Response } from 'express';
import { type StreamSink, type ServerTiming, openStream } from '../ai';
import type { PresentedError } from '../common/errors/error-presenter';
import {
  finishedResponse,
  functionCallItem,
  messageItem,
  type OutputItem,
  type ResponseObject,
  wireId,
} from './responses.mapper';
import type { FinishReason, TokenUsage, ToolCall } from '../models/call.types';

/** The settled reply a stream ends with, as AiService reports it. */
export interface StreamedResult {
  usage: TokenUsage;
  cost: number;
  finishReason: FinishReason;
}

/**
 * `stream: true` of /v1/responses: server-sent events `event: <type>` with `data: {type,
 * sequence_number, …}`, numbered from 0, in OpenAI's order: `response.created`,
 * `response.in_progress`; for text `response.output_item.added` (message),
 * `response.content_part.added`, `response.output_text.delta`…, `response.output_text.done`,
 * `response.content_part.done`, `response.output_item.done`; for each tool call
 * `response.output_item.added` (function_call), `response.function_call_arguments.delta`,
 * `response.function_call_arguments.done`, `response.output_item.done`; then
 * `response.completed` (or `response.incomplete` at the output limit) carrying the whole
 * response with `usage` and our `cost`. The stream opens with the first token, so every
 * failure before it answers with its HTTP status and an OpenAI error body; a failure after it
 * is an `error` event `{type: "error", code, message, param}`, which the `openai` SDK raises as
 * an APIError, and the stream ends.
 */
export class ResponsesStreamSink implements StreamSink {
  opened = false;
  /** The credits charged, once the settled reply is done. */
  charged?: number;
  private seq = 0;
  /** The finished response, once `finish` built it. */
  private finished?: ResponseObject;
  private readonly output: OutputItem[] = [];
  /** The message item being streamed, with its text so far. */
  private message?: { index: number; id: string; text: string };

  constructor(
    private readonly res: Response,
    /** The response so far; its `model` becomes the answering one once the first chunk came. */
    private pending: ResponseObject,
    private readonly present: (err: unknown) => PresentedError,
  ) {}

  admitted(): void {}

  start(_chatId: string, timing: ServerTiming, modelId?: string): void {
    if (modelId) this.pending = { ...this.pending, model: modelId };
    openStream(this.res, 'text/event-stream; charset=utf-8', timing);
    this.opened = true;
    this.event('response.created', { response: this.pending });
    this.event('response.in_progress', { response: this.pending });
  }

  text(delta: string): void {
    const message = this.message ?? this.openMessage();
    message.text += delta;
    this.event('response.output_text.delta', {
      item_id: message.id,
      output_index: message.index,
      content_index: 0,
      delta,
      logprobs: [],
    });
  }

  toolCall(call: ToolCall): void {
    this.closeMessage('completed');
    const output_index = this.output.length;
    const id = wireId('fc');
    this.output.push(functionCallItem(id, call, 'completed'));
    const args = JSON.stringify(call.arguments);
    this.event('response.output_item.added', {
      output_index,
      item: { ...functionCallItem(id, call, 'in_progress'), arguments: '' },
    });
    this.event('response.function_call_arguments.delta', {
      item_id: id,
      output_index,
      delta: args,
    });
    this.event('response.function_call_arguments.done', {
      item_id: id,
      output_index,
      name: call.name,
      arguments: args,
    });
    this.event('response.output_item.done', { output_index, item: this.output[output_index] });
  }

  /**
   * The finished response of the whole reply, built once (its message item closed): what a
   * stored response records before the settlement, and what `response.completed` carries.
   */
  finish(reply: StreamedResult): ResponseObject {
    if (this.finished) return this.finished;
    if (!this.output.length && !this.message) this.openMessage();
    this.closeMessage(reply.finishReason === 'length' ? 'incomplete' : 'completed');
    this.finished = finishedResponse(this.pending, this.output, reply);
    return this.finished;
  }

  /** The settled reply: the finished response with the credits charged, then the end. */
  done(result: StreamedResult): void {
    this.charged = result.cost;
    const response = { ...this.finish(result), cost: result.cost };
    const incomplete = result.finishReason === 'length';
    this.event(incomplete ? 'response.incomplete' : 'response.completed', { response });
    this.res.end();
  }

  error(err: unknown): void {
    const presented = this.present(err);
    const param = presented.details?.param;
    this.event('error', {
      code: presented.code.toLowerCase(),
      message: presented.error,
      param: typeof param === 'string' ? param : null,
    });
    this.res.end();
  }

  private openMessage(): { index: number; id: string; text: string } {
    const message = { index: this.output.length, id: wireId('msg'), text: '' };
    this.message = message;
    this.output.push(messageItem(message.id, '', 'in_progress'));
    const item = { ...messageItem(message.id, '', 'in_progress'), content: [] };
    this.event('response.output_item.added', { output_index: message.index, item });
    this.event('response.content_part.added', {
      item_id: message.id,
      output_index: message.index,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
    });
    return message;
  }

  /** Ends the streamed message, if one is open: its text, its part, its item. */
  private closeMessage(status: 'completed' | 'incomplete'): void {
    const message = this.message;
    if (!message) return;
    this.message = undefined;
    const item = messageItem(message.id, message.text, status);
    this.output[message.index] = item;
    const at = { item_id: message.id, output_index: message.index, content_index: 0 };
    this.event('response.output_text.done', { ...at, text: message.text, logprobs: [] });
    this.event('response.content_part.done', { ...at, part: item.content[0] });
    this.event('response.output_item.done', { output_index: message.index, item });
  }

  private event(type: string, data: object): void {
    if (this.res.writableEnded) return;
    const payload = { type, sequence_number: this.seq++, ...data };
    this.res.write(`event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`);
  }
}
