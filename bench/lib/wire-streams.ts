import { type Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** The three streaming wire formats under /v1. */
export type Wire = 'chat' | 'responses' | 'messages';

/** One /v1 stream as the client saw it (times in ms from sending the request). */
export interface WireStreamResult {
  status: number;
  /** Until the first text delta event. */
  ttftMs: number;
  totalMs: number;
  text: string;
  /** Text delta events received (chat `delta.content`, `response.output_text.delta`, `text_delta`). */
  deltas: number;
  /** The format's last event arrived: `[DONE]`, `response.completed`, `message_stop`. */
  ended: boolean;
  error?: string;
}

export interface WireTarget {
  wire: Wire;
  /** `http://127.0.0.1:port` */
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  agent: Agent;
}

/** What one SSE `data:` payload of `wire` means: a text piece, the end, an error, or nothing. */
function readEvent(wire: Wire, data: string): { text?: string; end?: boolean; error?: string } {
  if (wire === 'chat') {
    if (data === '[DONE]') return { end: true };
    const json = JSON.parse(data);
    if (json.error) return { error: JSON.stringify(json.error) };
    const piece = json.choices?.[0]?.delta?.content;
    return piece ? { text: piece } : {};
  }
  const json = JSON.parse(data);
  if (json.type === 'error') return { error: JSON.stringify(json.error ?? json) };
  if (wire === 'responses') {
    if (json.type === 'response.output_text.delta') return { text: json.delta };
    if (json.type === 'response.completed') return { end: true };
    if (json.type === 'response.failed' || json.type === 'response.incomplete') {
      return { error: json.type };
    }
    return {};
  }
  if (json.type === 'content_block_delta' && json.delta?.type === 'text_delta') {
    return { text: json.delta.text };
  }
  return json.type === 'message_stop' ? { end: true } : {};
}

/** Sends one streaming request of `t.wire`, reads its SSE to the end. Never rejects. */
export function wireStreamOnce(t: WireTarget): Promise<WireStreamResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    const payload = JSON.stringify(t.body);
    const r: WireStreamResult = {
      status: 0,
      ttftMs: NaN,
      totalMs: NaN,
      text: '',
      deltas: 0,
      ended: false,
    };
    let buffer = '';
    const done = (error?: string) => {
      r.totalMs = performance.now() - started;
      r.error ??= error;
      resolve(r);
    };
    const frame = (raw: string) => {
      const data = raw
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (!data) return;
      const ev = readEvent(t.wire, data);
      if (ev.text) {
        if (Number.isNaN(r.ttftMs)) r.ttftMs = performance.now() - started;
        r.text += ev.text;
        r.deltas++;
      }
      if (ev.end) r.ended = true;
      if (ev.error) r.error ??= ev.error;
    };
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
        r.status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk.replace(/\r\n/g, '\n');
          if (r.status !== 200) return;
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const raw = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            try {
              frame(raw);
            } catch (err) {
              r.error ??= `unreadable event: ${(err as Error).message}`;
            }
          }
        });
        res.on('end', () =>
          done(r.status === 200 ? undefined : `HTTP ${r.status}: ${buffer.slice(0, 300)}`),
        );
        res.on('error', (err) => done(err.message));
      },
    );
    req.on('error', (err) => done(err.message));
    req.end(payload);
  });
}
