import { createReadStream, statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** One streamed reply as the client saw it (times in ms from sending the request). */
export interface StreamResult {
  status: number;
  /** Until the first byte of reply text (service: first body byte; provider: first text delta). */
  ttftMs: number;
  totalMs: number;
  text: string;
  error?: string;
}

export interface StreamTarget {
  /** `http://127.0.0.1:port` */
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  /** `sse-openai`: parse OpenAI chunks; `text`: the body is the reply text. */
  format: 'sse-openai' | 'text';
  agent: Agent;
}

export const keepAliveAgent = (): Agent => new Agent({ keepAlive: true, maxSockets: Infinity });

/** Sends one streaming request and reads it to the end. Never rejects. */
export function streamOnce(t: StreamTarget): Promise<StreamResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    const payload = JSON.stringify(t.body);
    let ttftMs = NaN;
    let text = '';
    let status = 0;
    let sseBuffer = '';
    const done = (error?: string) =>
      resolve({ status, ttftMs, totalMs: performance.now() - started, text, error });
    const req = request(
      `${t.origin}${t.path}`,
      {
        method: 'POST',
        agent: t.agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...t.headers,
        },
      },
      (res) => {
        status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (status !== 200) {
            text += chunk;
            return;
          }
          if (t.format === 'text') {
            if (chunk.length && Number.isNaN(ttftMs)) ttftMs = performance.now() - started;
            text += chunk;
            return;
          }
          sseBuffer += chunk;
          let cut: number;
          while ((cut = sseBuffer.indexOf('\n\n')) >= 0) {
            const frame = sseBuffer.slice(0, cut);
            sseBuffer = sseBuffer.slice(cut + 2);
            const data = frame.startsWith('data: ') ? frame.slice(6) : '';
            if (!data || data === '[DONE]') continue;
            const piece: string | undefined = JSON.parse(data).choices?.[0]?.delta?.content;
            if (piece) {
              if (Number.isNaN(ttftMs)) ttftMs = performance.now() - started;
              text += piece;
            }
          }
        });
        res.on('end', () => done(status === 200 ? undefined : `HTTP ${status}: ${text}`));
        res.on('error', (err) => done(err.message));
      },
    );
    req.on('error', (err) => done(err.message));
    req.end(payload);
  });
}

/** Runs `total` calls of `fn`, at most `concurrency` at a time; results in completion order. */
export async function pool<T>(total: number, concurrency: number, fn: (i: number) => Promise<T>) {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total) results.push(await fn(next++));
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return results;
}

/** Pieces of `expected` not found, in order, in `received` (0 when nothing was lost). */
export function lostChunks(expected: string[], received: string): number {
  let lost = 0;
  let at = 0;
  for (const piece of expected) {
    const found = received.indexOf(piece, at);
    if (found < 0) lost++;
    else at = found + piece.length;
  }
  return lost;
}

/**
 * POSTs `file` as multipart field `file` (streamed from disk, with a Content-Length), and
 * resolves with the status, the answer and the time taken.
 */
export function uploadFile(
  url: string,
  token: string,
  file: string,
  name: string,
  contentType: string,
): Promise<{ status: number; body: string; ms: number }> {
  const boundary = `----bench${Date.now().toString(16)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
      `Content-Type: ${contentType}\r\n\r\n`,
  );
  const tailPart = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + statSync(file).size + tailPart.length;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': length,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - started }),
        );
      },
    );
    req.on('error', reject);
    req.write(head);
    const stream = createReadStream(file, { highWaterMark: 1 << 20 });
    stream.on('error', reject);
    stream.on('end', () => req.end(tailPart));
    stream.pipe(req, { end: false });
  });
}
