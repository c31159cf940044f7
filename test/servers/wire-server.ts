import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a local provider server received it. */
export interface RecordedRequest {
  method: string;
  /** Path with query string, e.g. `/v1/models/m:streamGenerateContent?alt=sse`. */
  path: string;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body (undefined when empty). */
  body: any;
  /** True when the client closed the connection before the response ended. */
  aborted: boolean;
  /** Streamed replies: text chunks written to the socket so far. */
  textChunksSent: number;
}

/** Behaviour shared by the local provider servers; set per test through `reply`. */
export interface WireReply {
  /** Reply text (default `Hello from the test model.`). */
  text?: string;
  /** Streamed replies: split `text` into this many chunks (default 3). */
  chunks?: number;
  /** Streamed replies: wait this long before each text chunk (ms, default 0). */
  chunkDelayMs?: number;
  /** Answer with this HTTP status and the provider's error body instead. */
  status?: number;
  /** `Retry-After` header of an error reply; default `2` for 429, none otherwise. */
  retryAfter?: string;
  /** Streamed replies: destroy the socket after this many text chunks were sent. */
  cutAfterChunks?: number;
  /**
   * Streamed replies: after this many text chunks, send nothing more until the client goes
   * away (a stalled upstream). A client that waits for the next chunk before acting waits
   * until its test times out, so a passing test proves it acted on its own.
   */
  stallAfterChunks?: number;
  /**
   * Ask for these tool calls (each provider's own shape: OpenAI `tool_calls`, Anthropic
   * `tool_use` blocks, Gemini `functionCall` parts) after `text`, which then defaults to ''.
   * Without `id` the OpenAI and Anthropic servers make one up and Gemini sends none.
   */
  toolCalls?: { id?: string; name: string; arguments: Record<string, unknown> }[];
  /**
   * A structured answer (a `response_format` request): OpenAI and Gemini send its JSON as the
   * text; Anthropic, asked through a forced tool, sends it as that tool's `tool_use` input.
   */
  json?: Record<string, unknown>;
  /**
   * Streamed replies: after this many tool calls were sent whole, send nothing more until the
   * client goes away (no finish, no usage).
   */
  stallAfterToolCalls?: number;
}

/** The reply text of `reply`: its `json`, its `text`, else '' when it calls tools, else the default. */
export function replyText(reply: WireReply): string {
  if (reply.json) return JSON.stringify(reply.json);
  return reply.text ?? (reply.toolCalls?.length ? '' : DEFAULT_TEXT);
}

/**
 * One SSE frame as written to the socket; `text` frames count for delays and cuts, `callDone`
 * marks the last frame of a tool call (for `stallAfterToolCalls`).
 */
export interface SseFrame {
  data: string;
  text?: boolean;
  callDone?: boolean;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The reply a request took (a script entry, or `reply` merged with `autoReply`), while it runs. */
const requestReply = new AsyncLocalStorage<WireReply>();

/**
 * Plumbing of a local server that speaks one provider's wire protocol to its real SDK:
 * listening, request recording (incl. client aborts), JSON and SSE replies with latency and
 * mid-stream cuts. Subclasses route requests and build the provider's bodies.
 */
export abstract class WireTestServer<R extends WireReply> {
  readonly requests: RecordedRequest[] = [];
  private base = {} as R;
  /**
   * How requests are answered (set per test). Read within a request, the reply that request
   * took: concurrent requests never see each other's script entry or auto reply.
   */
  get reply(): R {
    return (requestReply.getStore() as R | undefined) ?? this.base;
  }
  set reply(value: R) {
    this.base = value;
  }
  /**
   * Replies for the next requests, in order (retries, tool loops): each request takes the first
   * one in place of `reply`; once the script is used up, requests get `reply` again.
   */
  script: R[] = [];
  /**
   * Off in tests (they set `reply`). On (`npm run mock:openai`), a request no `script` entry
   * answers gets `reply` merged with `autoReply` of the request: a call of an offered tool, JSON
   * fitting a requested schema, the configured cached tokens.
   */
  auto = false;
  /** With `auto`: prompt tokens each reply reports as read from the cache (default 0). */
  cachedTokens = 0;
  /** Base URL for the SDK (set by `start`). */
  url = '';
  private server?: Server;

  /** Answers one recorded request; `res` is still open. */
  protected abstract handle(req: RecordedRequest, res: ServerResponse): Promise<void>;

  /** With `auto`: what this request is answered beyond `reply` (see `auto`). */
  protected autoReply(_req: RecordedRequest): Partial<R> {
    return {};
  }

  /** The SDK's base URL given `http://127.0.0.1:port`. */
  protected baseUrl(origin: string): string {
    return origin;
  }

  /** Listens on 127.0.0.1:`port` (0 = any free port). */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const recorded: RecordedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: raw ? JSON.parse(raw) : undefined,
          aborted: false,
          textChunksSent: 0,
        };
        recordOf.set(res, recorded);
        this.requests.push(recorded);
        const scripted =
          this.script.shift() ??
          (this.auto ? { ...this.reply, ...this.autoReply(recorded) } : undefined);
        res.on('close', () => {
          if (!res.writableEnded && !cut.has(res)) recorded.aborted = true;
        });
        const answer = () => this.handle(recorded, res);
        (scripted ? requestReply.run(scripted, answer) : answer()).catch(() => res.destroy());
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    const { port: bound } = this.server.address() as AddressInfo;
    this.url = this.baseUrl(`http://127.0.0.1:${bound}`);
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Clears `reply` and `requests` (call in beforeEach). */
  reset(): void {
    this.reply = {} as R;
    this.script = [];
    this.requests.length = 0;
  }

  /** `text` split into `n` nearly equal, non-empty pieces (fewer when text is shorter). */
  protected split(text: string, n = this.reply.chunks ?? 3): string[] {
    const chars = [...text];
    const count = Math.max(1, Math.min(n, chars.length));
    const size = Math.ceil(chars.length / count);
    const pieces: string[] = [];
    for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
    return pieces.length ? pieces : [''];
  }

  protected sendJson(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  /** An error reply: `status` with `body`, and `Retry-After` on 429 (or when set). */
  protected sendError(res: ServerResponse, status: number, body: unknown): void {
    const retryAfter = this.reply.retryAfter ?? (status === 429 ? '2' : undefined);
    this.sendJson(res, status, body, retryAfter ? { 'retry-after': retryAfter } : {});
  }

  /**
   * Writes `frames` as `text/event-stream`, waiting `chunkDelayMs` before each text frame,
   * destroying the socket after `cutAfterChunks` text frames and going silent after
   * `stallAfterChunks`. Stops when the client goes away.
   */
  protected async sendSse(res: ServerResponse, frames: SseFrame[]): Promise<void> {
    const { chunkDelayMs = 0, cutAfterChunks, stallAfterChunks, stallAfterToolCalls } = this.reply;
    let callsSent = 0;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    let textSent = 0;
    for (const frame of frames) {
      if (frame.text && cutAfterChunks !== undefined && textSent >= cutAfterChunks) {
        cut.add(res);
        res.socket?.destroy();
        return;
      }
      if (frame.text && stallAfterChunks !== undefined && textSent >= stallAfterChunks) {
        if (!res.destroyed) await new Promise((gone) => res.once('close', gone));
        return;
      }
      if (frame.text && chunkDelayMs > 0) await delay(chunkDelayMs);
      if (res.destroyed) return;
      await new Promise<void>((resolve) => res.write(frame.data, () => resolve()));
      if (frame.text) textSent++;
      const recorded = recordOf.get(res);
      if (recorded) recorded.textChunksSent = textSent;
      if (frame.callDone && ++callsSent === stallAfterToolCalls) {
        if (!res.destroyed) await new Promise((gone) => res.once('close', gone));
        return;
      }
    }
    res.end();
  }
}

/** Responses whose socket the server destroyed on purpose (not a client abort). */
const cut = new WeakSet<ServerResponse>();
/** The recorded request each response answers. */
const recordOf = new WeakMap<ServerResponse, RecordedRequest>();

/** The whole reply text of a request, for the provider servers' default. */
export const DEFAULT_TEXT = 'Hello from the test model.';
