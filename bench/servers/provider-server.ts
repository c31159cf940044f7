import type { ServerResponse } from 'node:http';
import { OpenAiTestServer, type OpenAiReply } from '../../test/servers/openai-server';
import type { RecordedRequest } from '../../test/servers/wire-server';

/** What the bench sets through `POST /_bench/reply`: the test server's reply plus a delay. */
export interface BenchReply extends OpenAiReply {
  /** Whole (non-streamed) replies: wait this long before answering (ms). */
  generateDelayMs?: number;
  /**
   * Share of model calls (0..1) answered at once with a 500 and OpenAI's error body, spread
   * evenly (with 0.3: calls 4, 7, 10, … of every ten fail the same way every run).
   */
  failRate?: number;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The OpenAI test server from `test/servers`, unchanged on the wire, plus what the bench needs:
 * a fixed delay before whole replies, a share of calls failing with 500, `POST /_bench/reply` to
 * change the reply between scenarios, `GET /_bench/calls` (`{calls}`: chat completion calls
 * received so far), and no request log (it would grow with every request of a load test).
 * Runs in its own process; prints `LISTENING <port>`.
 */
class BenchProviderServer extends OpenAiTestServer {
  get reply(): BenchReply {
    return super.reply as BenchReply;
  }
  set reply(value: BenchReply) {
    super.reply = value;
  }

  /** Model calls so far, the base of `failRate`'s even spread. */
  private calls = 0;
  /** Every chat completion call received (`GET /_bench/calls`), failed ones included. */
  private completions = 0;

  protected async handle(req: RecordedRequest, res: ServerResponse): Promise<void> {
    this.requests.length = 0;
    if (req.method === 'POST' && req.path === '/_bench/reply') {
      this.reply = (req.body ?? {}) as BenchReply;
      return this.sendJson(res, 200, { ok: true });
    }
    if (req.method === 'GET' && req.path === '/_bench/calls') {
      return this.sendJson(res, 200, { calls: this.completions });
    }
    if (req.method === 'POST' && req.path.endsWith('/chat/completions')) this.completions++;
    const rate = this.reply.failRate ?? 0;
    if (rate > 0 && req.method === 'POST' && req.path.endsWith('/chat/completions')) {
      const n = this.calls++;
      if (Math.floor((n + 1) * rate) > Math.floor(n * rate)) {
        return this.sendJson(res, 500, {
          error: { message: 'The server had an error (bench)', type: 'server_error', code: null },
        });
      }
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
