import type { ServerResponse } from 'node:http';
import { AnthropicTestServer, type AnthropicReply } from '../../servers/anthropic-server';
import { GeminiTestServer, type GeminiReply } from '../../servers/gemini-server';
import { OpenAiTestServer, type OpenAiReply } from '../../servers/openai-server';
import type { RecordedRequest, SseFrame } from '../../servers/wire-server';

/** Extra faults of the OpenAI server, on top of status, Retry-After, latency and cuts. */
export interface FaultReply extends OpenAiReply {
  /** Streamed replies: reset the TCP connection (RST, ECONNRESET) after this many text chunks. */
  resetAfterChunks?: number;
  /** Streamed replies: after the headers and the role chunk, wait this long before the first text. */
  silenceBeforeFirstMs?: number;
}

/** A server whose next requests get the replies in `script`, in order, then `reply` again. */
interface Scripted<R> {
  script: R[];
  reply: R;
}

/** Runs one request with the next scripted reply (if any), restoring `reply` afterwards. */
async function withNextReply<R>(server: Scripted<R>, run: () => Promise<void>): Promise<void> {
  const next = server.script.shift();
  if (!next) return run();
  const saved = server.reply;
  server.reply = next;
  try {
    await run();
  } finally {
    server.reply = saved;
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The OpenAI wire server with a reply script, connection resets and silences. */
export class FaultyOpenAiServer extends OpenAiTestServer implements Scripted<FaultReply> {
  script: FaultReply[] = [];
  declare reply: FaultReply;

  protected handle(req: RecordedRequest, res: ServerResponse): Promise<void> {
    return withNextReply(this, () => super.handle(req, res));
  }

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

export class ScriptedAnthropicServer
  extends AnthropicTestServer
  implements Scripted<AnthropicReply>
{
  script: AnthropicReply[] = [];
  protected handle(req: RecordedRequest, res: ServerResponse): Promise<void> {
    return withNextReply(this, () => super.handle(req, res));
  }
}

export class ScriptedGeminiServer extends GeminiTestServer implements Scripted<GeminiReply> {
  script: GeminiReply[] = [];
  protected handle(req: RecordedRequest, res: ServerResponse): Promise<void> {
    return withNextReply(this, () => super.handle(req, res));
  }
}
