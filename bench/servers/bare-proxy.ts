import { createServer, type IncomingMessage } from 'node:http';
import OpenAI, { type ClientOptions } from 'openai';
import { Agent, fetch as undiciFetch } from 'undici';

/**
 * The yardstick for overhead: a pass-through gateway that does no metering at all. It takes the
 * service's own request bodies (`{modelId, messages, maxTokens}`) on the service's paths, calls
 * the provider with the same `openai` SDK the service uses, and answers like the service does:
 * `POST /api/ai/generate` → `{text, usage: {promptTokens, completionTokens}}` (JSON),
 * `POST /api/ai/stream` → the reply text as it arrives (text/plain). No auth, no database,
 * nothing saved. Provider at `PROVIDER_URL` (…/v1). Prints `LISTENING <port>`.
 */
// PROXY_TRANSPORT=agent: the SDK fetches through undici's own fetch with a tuned keep-alive Agent
// (bench/transport.ts compares it with Node's global fetch, the SDK's default).
const tuned: Partial<ClientOptions> =
  process.env.PROXY_TRANSPORT === 'agent'
    ? {
        fetch: undiciFetch as unknown as typeof fetch,
        fetchOptions: {
          dispatcher: new Agent({ connections: 128, keepAliveTimeout: 60_000, pipelining: 1 }),
        } as ClientOptions['fetchOptions'],
      }
    : {};
const openai = new OpenAI({
  apiKey: 'sk-bench-local',
  baseURL: process.env.PROVIDER_URL,
  maxRetries: 0,
  ...tuned,
});

async function json(req: IncomingMessage): Promise<{
  modelId: string;
  messages: { role: 'user' | 'assistant' | 'system'; content: string }[];
  maxTokens?: number;
}> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const server = createServer((req, res) => {
  void (async () => {
    const body = await json(req);
    const params = { model: body.modelId, messages: body.messages, max_tokens: body.maxTokens };
    if (req.url === '/api/ai/generate') {
      const r = await openai.chat.completions.create(params);
      const answer = JSON.stringify({
        text: r.choices[0]?.message.content ?? '',
        usage: {
          promptTokens: r.usage?.prompt_tokens,
          completionTokens: r.usage?.completion_tokens,
        },
      });
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(answer);
    } else if (req.url === '/api/ai/stream') {
      const stream = await openai.chat.completions.create({
        ...params,
        stream: true,
        stream_options: { include_usage: true },
      });
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      for await (const chunk of stream) {
        const text = chunk.choices[0]?.delta?.content;
        if (text) res.write(text);
      }
      res.end();
    } else {
      res.writeHead(404).end();
    }
  })().catch((err: Error) => {
    if (!res.headersSent) res.writeHead(502);
    res.end(err.message);
  });
});

server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`LISTENING ${address.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
