import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { ownApiResult } from '../calls/stream-sinks';
import type { UIMessageChunk } from 'ai';
import type { StreamSink } from '../calls/ai.service';
import type { ServerTiming } from '../calls/server-timing';
import type { PresentError } from '../calls/stream-sinks';
import type { ParameterName } from '../../models/dto/model-parameters.dto';
import type { ToolResult } from '../../plugins/tool.types';
import type { TokenUsage, ToolCall } from '../../models/call.types';

/** `metadata` of the assistant message: on `start` the chat id, on `finish` also usage and cost. */
export interface UiReplyMetadata {
  chatId: string;
  usage?: TokenUsage;
  /** Credits charged (integer). */
  cost?: number;
  /** With plugins: model calls of the tool loop, and why it stopped. */
  modelCalls?: number;
  stopReason?: 'stop' | 'max_tool_steps';
  /** Inherited parameters the model does not take, passed over; absent when none. */
  skippedParameters?: ParameterName[];
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
  private textId = randomUUID();
  private textOpen = false;
  private stepOpen = false;

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
    // The AI SDK is loaded by the first UI-chat reply, not by every boot.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { pipeUIMessageStreamToResponse } = require('ai') as typeof import('ai');
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
    this.openText();
  }

  text(delta: string): void {
    this.openText();
    this.push({ type: 'text-delta', id: this.textId, delta });
  }

  /**
   * A tool the model called as the AI SDK's dynamic tool part: the step's text
   * ends, `tool-input-available` names the call; its result follows in the same step.
   */
  toolCall(call: ToolCall): void {
    this.endText(false);
    this.openStep();
    const { id: toolCallId, name: toolName, arguments: input } = call;
    this.push({ type: 'tool-input-available', toolCallId, toolName, input, dynamic: true });
  }

  /** `tool-output-available` (the tool's text) or `tool-output-error`; then the step ends. */
  toolResult(call: ToolCall, result: ToolResult): void {
    this.push(
      result.ok
        ? {
            type: 'tool-output-available',
            toolCallId: call.id,
            output: result.content,
            dynamic: true,
          }
        : {
            type: 'tool-output-error',
            toolCallId: call.id,
            errorText: result.summary,
            dynamic: true,
          },
    );
    this.endStep();
  }

  done(result: UiReplyMetadata & { finishReason?: unknown; toolCalls?: unknown }): void {
    this.endText();
    this.push({ type: 'finish', finishReason: 'stop', messageMetadata: ownApiResult(result) });
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

  private openStep(): void {
    if (this.stepOpen) return;
    this.stepOpen = true;
    this.push({ type: 'start-step' });
  }

  private endStep(): void {
    if (!this.stepOpen) return;
    this.stepOpen = false;
    this.push({ type: 'finish-step' });
  }

  /** Opens a text part (and its step) unless one is open; each step's text has its own id. */
  private openText(): void {
    if (this.textOpen) return;
    this.openStep();
    this.textOpen = true;
    this.textId = randomUUID();
    this.push({ type: 'text-start', id: this.textId });
  }

  /** Ends the open text part, and its step unless a tool call continues it. */
  private endText(endStep = true): void {
    if (this.textOpen) {
      this.textOpen = false;
      this.push({ type: 'text-end', id: this.textId });
    }
    if (endStep) this.endStep();
  }

  private push(chunk: UIMessageChunk<UiReplyMetadata>): void {
    if (!this.closed) this.chunks?.enqueue(chunk);
  }
}
