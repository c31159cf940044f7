import http, { type IncomingHttpHeaders } from 'node:http';
import { checkRemoteAnswer } from '../../support/openapi/validation-hook';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string or Buffer as is. */
  body?: unknown;
  /** Fails the request after this long without an answer (default 15 s). */
  timeoutMs?: number;
}

/**
 * One HTTP request with node:http, so paths, headers and bodies go out exactly as given
 * (malformed ones included). Resolves with the whole answer, once it was checked against the
 * service's OpenAPI document (see checkRemoteAnswer).
 */
export function call(
  base: string,
  method: string,
  path: string,
  opts: RequestOptions = {},
): Promise<Answer> {
  const url = new URL(base);
  const headers: Record<string, string> = { ...opts.headers };
  let payload: Buffer | undefined;
  if (Buffer.isBuffer(opts.body)) payload = opts.body;
  else if (typeof opts.body === 'string') payload = Buffer.from(opts.body);
  else if (opts.body !== undefined) {
    payload = Buffer.from(JSON.stringify(opts.body));
    headers['content-type'] ??= 'application/json';
  }
  // Node sends a GET or DELETE body without framing unless the length is given.
  if (payload) headers['content-length'] = String(payload.length);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method, path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const answer = { status: res.statusCode ?? 0, headers: res.headers, text, json };
          checkRemoteAnswer(base, { method, path, ...answer, body: text }).then(
            () => resolve(answer),
            reject,
          );
        });
      },
    );
    req.setTimeout(opts.timeoutMs ?? 15_000, () =>
      req.destroy(new Error(`${method} ${path}: no answer within ${opts.timeoutMs ?? 15_000} ms`)),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A streamed answer being read: what arrived so far and how it ended. */
export interface OpenStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** Body bytes received so far, as text. */
  received(): string;
  /** Gaps between consecutive received chunks (and from the headers to the first), in ms. */
  gaps: number[];
  /** `end` when the server finished the body, `error: …` when the connection broke. */
  ended: Promise<string>;
  /** Resolves once at least one body chunk arrived. */
  firstChunk: Promise<void>;
  destroy(): void;
}

/**
 * POSTs `body` as JSON and resolves as soon as the status line and headers are in, leaving the
 * body to stream. `idleTimeoutMs` plays a proxy that cuts a connection idle for that long.
 */
export function openStream(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  idleTimeoutMs?: number,
): Promise<OpenStream> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path,
      headers: { ...headers, 'content-type': 'application/json' },
      agent: false,
    });
    if (idleTimeoutMs)
      req.setTimeout(idleTimeoutMs, () => req.destroy(new Error('idle timeout (proxy cut)')));
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      let last = Date.now();
      const gaps: number[] = [];
      let gotFirst!: () => void;
      const firstChunk = new Promise<void>((r) => (gotFirst = r));
      res.on('data', (c: Buffer) => {
        const now = Date.now();
        gaps.push(now - last);
        last = now;
        text += c.toString('utf8');
        gotFirst();
      });
      const ended = new Promise<string>((done) => {
        res.on('end', () => done('end'));
        res.on('error', (e) => done(`error: ${e.message}`));
        res.on('aborted', () => done('error: aborted'));
        req.on('error', (e) => done(`error: ${e.message}`));
      });
      req.removeListener('error', reject);
      // The body streams on: the document check covers status and content type.
      void checkRemoteAnswer(base, {
        method: 'POST',
        path,
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: undefined,
        aborted: true,
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        received: () => text,
        gaps,
        ended,
        firstChunk,
        destroy: () => req.destroy(),
      });
    });
    req.end(JSON.stringify(body));
  });
}

export { parseSse } from '../../support/sse';
