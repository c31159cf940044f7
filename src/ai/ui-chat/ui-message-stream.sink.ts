import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { pipeUIMessageStreamToResponse, type UIMessageChunk } from 'ai';
import type { StreamSink } from '../ai.service';
import type { ServerTiming } from '../server-timing';
import type { PresentError } from '../stream-sinks';
import type { TokenUsage } from '../../credits/pricing';

/** `metadata` of the assistant message: on `start` the chat id, on `finish` also usage and cost. */
export interface UiReplyMetadata {
  chatId: string;
  usage?: TokenUsage;
  /** Credits charged (integer). */
  cost?: number;
}

/**
 * The Vercel AI SDK's UI message stream (SSE, `x-vercel-ai-ui-message-stream: v1`), framed by
 * the `ai` package itself: `start` {messageId, messageMetadata {chatId}}, `start-step`,
 * `text-start`, `text-delta`…, `text-end`, `finish-step`, `finish` {messageMetadata {chatId,
 * usage, cost}}, then `[DONE]`; a failure after opening is one `error` {errorText}. Opens right
 * after admission, with keep-alive comments every `pingMs` until the end.
 */
export class UiMessageStreamSink implements StreamSink {
  opened = false;
  private chunks?: ReadableStreamDefaultController<UIMessageChunk<UiReplyMetadata>>;
  private closed = false;
  private readonly textId = randomUUID();
  private textOpen = false;

  constructor(
    private readonly res: Response,
    private readonly present: PresentError,
    private readonly pingMs: number,
  ) {}

  admitted(chatId: string, timing: ServerTiming): void {
    const stream = new ReadableStream<UIMessageChunk<UiReplyMetadata>>({
      start: (controller) => void (this.chunks = controller),
      cancel: () => void (this.closed = true), // the client went away
    });
    void pipeUIMessageStreamToResponse({
      response: this.res,
      stream,
      headers: { 'X-Chat-Id': chatId, 'Server-Timing': timing.header() },
      keepAliveMs: this.pingMs,
    });
    this.opened = true;
    this.push({ type: 'start', messageId: randomUUID(), messageMetadata: { chatId } });
  }

  start(): void {
    this.push({ type: 'start-step' });
    this.push({ type: 'text-start', id: this.textId });
    this.textOpen = true;
  }

  text(delta: string): void {
    this.push({ type: 'text-delta', id: this.textId, delta });
  }

  done(result: { usage: TokenUsage; cost: number; chatId: string }): void {
    this.endText();
    this.push({ type: 'finish', finishReason: 'stop', messageMetadata: result });
    this.close();
  }

  error(err: unknown): void {
    this.endText();
    this.push({ type: 'error', errorText: this.present(err).error });
    this.close();
  }

  /** Ends the stream (idempotent): after done/error, or when the request was aborted. */
  close(): void {
    if (this.closed || !this.chunks) return;
    this.closed = true;
    this.chunks.close();
  }

  private endText(): void {
    if (!this.textOpen) return;
    this.textOpen = false;
    this.push({ type: 'text-end', id: this.textId });
    this.push({ type: 'finish-step' });
  }

  private push(chunk: UIMessageChunk<UiReplyMetadata>): void {
    if (!this.closed) this.chunks?.enqueue(chunk);
  }
}
