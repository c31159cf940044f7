import type { Response } from 'express';
import { AppError, CommonErrorCode } from '../../common/errors/app-error';
import { shutdownCutOf, trackStream } from '../../lifecycle/open-streams';
import type { StreamSink } from './ai.service';
import type { SseEvent } from '../dto/stream.dto';
import type { ServerTiming } from './server-timing';
import type { ToolResult } from '../../plugins/tool.types';
import type { ToolCall } from '../../models/call.types';

/**
 * Runs a streamed reply into `sink`. `signal` is the client's: aborted when it goes away (the
 * provider call then drains or stops, ABORT_MODE, see AiService). A failure after the sink opened
 * becomes the sink's error; one before is thrown, so the error filter still answers JSON with
 * its status.
 */
export async function streamTo(
  res: Response,
  sink: StreamSink & { opened: boolean },
  run: (signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const client = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) client.abort();
  });
  // Shutdown waits for this stream (its drain included), then cuts it (src/lifecycle).
  const ended = trackStream(client.signal);
  try {
    await run(client.signal);
  } catch (err) {
    if (!sink.opened) throw err;
    sink.error(err);
  } finally {
    ended();
    // Cut by shutdown while the client is still there: say so, and end the answer.
    const cut = shutdownCutOf(client.signal)?.aborted;
    if (cut && sink.opened && !res.writableEnded && !res.destroyed)
      sink.error(
        new AppError(CommonErrorCode.NOT_READY, 'The service is shutting down; reply cut'),
      );
  }
}

/** Default interval of SSE `: ping` comments until the first token (proxies cut at 60 s idle). */
export const SSE_PING_MS = 15_000;

/**
 * A result without the fields only the wire protocols show (`finishReason`, the client tools'
 * `toolCalls`): what `/api/ai/*` answers and sends in its `done` events.
 */
export function ownApiResult<T extends { finishReason?: unknown; toolCalls?: unknown }>(
  result: T,
): Omit<T, 'finishReason' | 'toolCalls'> {
  const own: Partial<T> = { ...result };
  delete own.finishReason;
  delete own.toolCalls;
  return own as Omit<T, 'finishReason' | 'toolCalls'>;
}

/** `{error, code}` of a failure after the stream opened, as the error filter would say it. */
export type PresentError = (err: unknown) => { error: string; code: string };

/**
 * Status 200 and the headers that keep every hop from buffering or compressing a stream, for
 * every stream format (ours and the `/v1` wire protocols). `X-Chat-Id` only when `chatId` is
 * given (a wire request saves no chat without `store: true`).
 */
export function openStream(
  res: Response,
  contentType: string,
  timing: ServerTiming,
  chatId?: string,
): void {
  res.status(200);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  res.setHeader('Connection', 'keep-alive');
  if (chatId) res.setHeader('X-Chat-Id', chatId);
  res.setHeader('Server-Timing', timing.header());
  res.socket?.setNoDelay(true);
  // No flushHeaders(): every sink writes right after opening (the first text, or `: ping`), and
  // Node sends the status and headers in the same packet as that first write.
}

/**
 * The spec's default: `text/plain; charset=utf-8`, chunked incremental text. Status and headers
 * go out with the first chunk, so every earlier failure still answers with its status and JSON.
 */
export class TextStreamSink implements StreamSink {
  opened = false;
  constructor(
    private readonly res: Response,
    private readonly present: PresentError,
  ) {}

  admitted(): void {}

  start(chatId: string, timing: ServerTiming): void {
    openStream(this.res, 'text/plain; charset=utf-8', timing, chatId);
    this.opened = true;
  }

  text(delta: string): void {
    this.res.write(delta);
  }

  done(): void {
    this.res.end();
  }

  error(err: unknown): void {
    this.present(err); // plain text cannot carry an error after the status: logged, then end
    this.res.end();
  }
}

/**
 * Server-Sent Events (`Accept: text/event-stream`): `event: delta` `{text}`, then one
 * `event: done` `{usage, cost, chatId, skippedParameters?}` or one `event: error`
 * `{error, code}`. Opens right after admission and sends `: ping` at once and every 15 s until
 * the first token.
 */
export class SseStreamSink implements StreamSink {
  opened = false;
  private ping?: NodeJS.Timeout;
  constructor(
    private readonly res: Response,
    private readonly present: PresentError,
    private readonly pingMs = SSE_PING_MS,
  ) {}

  admitted(chatId: string, timing: ServerTiming): void {
    openStream(this.res, 'text/event-stream; charset=utf-8', timing, chatId);
    this.opened = true;
    this.res.write(': ping\n\n');
    this.ping = setInterval(() => this.res.write(': ping\n\n'), this.pingMs);
  }

  start(): void {
    clearInterval(this.ping);
  }

  text(delta: string): void {
    this.event('delta', { text: delta });
  }

  toolCall(call: ToolCall): void {
    this.event('tool_call', { id: call.id, name: call.name, arguments: call.arguments });
  }

  toolResult(call: ToolCall, result: ToolResult): void {
    this.event('tool_result', {
      id: call.id,
      name: call.name,
      ok: result.ok,
      summary: result.summary,
    });
  }

  done(result: Parameters<StreamSink['done']>[0]): void {
    this.event('done', ownApiResult(result));
    this.res.end();
  }

  error(err: unknown): void {
    clearInterval(this.ping);
    const { error, code } = this.present(err);
    this.event('error', { error, code });
    this.res.end();
  }

  private event(name: SseEvent, data: object): void {
    if (!this.res.writableEnded)
      this.res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }
}
