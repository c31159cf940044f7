import type { ServerResponse } from 'node:http';
import { OpenAiTestServer, type OpenAiReply } from '../../test/servers/openai-server';
import type { RecordedRequest } from '../../test/servers/wire-server';

/** What the bench sets through `POST /_bench/reply`: the test server's reply plus a delay. */
export interface BenchReply extends OpenAiReply {
  /** Whole (non-streamed) replies: wait this long before answering (ms). */
  generateDelayMs?: number;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The OpenAI test server from `test/servers`, unchanged on the wire, plus what the bench needs:
 * a fixed delay before whole replies, `POST /_bench/reply` to change the reply between
 * scenarios, and no request log (it would grow with every request of a load test).
 * Runs in its own process; prints `LISTENING <port>`.
 */
class BenchProviderServer extends OpenAiTestServer {
  declare reply: BenchReply;

  protected async handle(req: RecordedRequest, res: ServerResponse): Promise<void> {
    this.requests.length = 0;
    if (req.method === 'POST' && req.path === '/_bench/reply') {
      this.reply = (req.body ?? {}) as BenchReply;
      return this.sendJson(res, 200, { ok: true });
    }
    const wait = this.reply.generateDelayMs ?? 0;
    if (wait > 0 && req.body && !req.body.stream) await delay(wait);
    return super.handle(req, res);
  }
}

async function main(): Promise<void> {
  const server = await new BenchProviderServer().start(0);
  console.log(`LISTENING ${new URL(server.url).port}`);
  process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
}

void main();
