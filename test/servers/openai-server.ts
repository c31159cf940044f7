import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface OpenAiReply {
  text?: string;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Answer with this HTTP status and an OpenAI error body instead. */
  status?: number;
}

/**
 * A local server speaking OpenAI's chat-completions wire protocol (`POST /v1/chat/completions`),
 * so the real `openai` SDK can talk to it through OPENAI_BASE_URL. Set `reply` per test;
 * `requests` records what arrived.
 */
export class OpenAiTestServer {
  readonly requests: RecordedRequest[] = [];
  reply: OpenAiReply = {};
  private server?: Server;

  /** Base URL to use as OPENAI_BASE_URL, e.g. `http://127.0.0.1:40123/v1`. */
  url = '';

  /** Listens on 127.0.0.1:`port` (0 = any free port). */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = raw ? JSON.parse(raw) : undefined;
        this.requests.push({ path: req.url ?? '', headers: req.headers, body });
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
          res
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { message: 'not found' } }));
          return;
        }
        const { text = 'Hello from the test model.', usage, status } = this.reply;
        if (status) {
          res.writeHead(status, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              error: { message: 'upstream failure', type: 'server_error', code: null },
            }),
          );
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'chatcmpl-test',
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body?.model,
            choices: [
              { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' },
            ],
            ...(usage === null
              ? {}
              : {
                  usage: {
                    ...(usage ?? { prompt_tokens: 10, completion_tokens: 20 }),
                    total_tokens: 0,
                  },
                }),
          }),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
