import type { ServerResponse } from 'node:http';
import { OpenAiTestServer, type OpenAiReply } from '../../servers/openai-server';
import type { SseFrame } from '../../servers/wire-server';

/** Extra faults of the OpenAI server, on top of status, Retry-After, latency and cuts. */
export interface FaultReply extends OpenAiReply {
  /** Streamed replies: reset the TCP connection (RST, ECONNRESET) after this many text chunks. */
  resetAfterChunks?: number;
  /** Streamed replies: after the headers and the role chunk, wait this long before the first text. */
  silenceBeforeFirstMs?: number;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The OpenAI wire server with connection resets and silences (replies scripted through the
 * base server's `script`).
 */
export class FaultyOpenAiServer extends OpenAiTestServer {
  get reply(): FaultReply {
    return super.reply as FaultReply;
  }
  set reply(value: FaultReply) {
    super.reply = value;
  }
  declare script: FaultReply[];

  protected async sendSse(res: ServerResponse, frames: SseFrame[]): Promise<void> {
    const { resetAfterChunks, silenceBeforeFirstMs = 0 } = this.reply;
    if (resetAfterChunks === undefined && !silenceBeforeFirstMs) return super.sendSse(res, frames);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    let textSent = 0;
    for (const frame of frames) {
      if (frame.text && resetAfterChunks !== undefined && textSent >= resetAfterChunks) {
        res.socket?.resetAndDestroy();
        return;
      }
      if (frame.text && textSent === 0 && silenceBeforeFirstMs) await delay(silenceBeforeFirstMs);
      if (res.destroyed) return;
      await new Promise<void>((resolve) => res.write(frame.data, () => resolve()));
      if (frame.text) textSent++;
    }
    res.end();
  }
}
