import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAiTestServer } from '../servers/openai-server';
import { BOOT_MS, freePort, spawnApp, type SpawnedApp, waitForStatus } from '../support/spawn-app';
import { adminQuery, databaseUrl, templateDb, TEST_DB_PREFIX } from '../support/test-db';
import { waitFor } from '../support/wait';
import { call } from './support/http';
import { SERVICE_SECRET, signUp } from './support/service';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

/** A local OTLP/HTTP (JSON) trace receiver: the wire protocol of any collector. */
class OtlpReceiver {
  readonly spans: OtlpSpan[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/v1/traces') {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          for (const rs of body.resourceSpans ?? [])
            for (const ss of rs.scopeSpans ?? []) this.spans.push(...(ss.spans ?? []));
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server?.close(() => r()) ?? r());
  }
}

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v ? Object.values(v)[0] : undefined;
};

/**
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, one generate is one trace (continued from
 * the caller's `traceparent`): the server span, our spans, PostgreSQL spans and the provider's
 * HTTP client span; the answer names it in `traceparent`, and its log lines carry its id. The
 * SDK patches modules as they load, so the service runs as a child process (as in production).
 */
describe('OpenTelemetry traces', () => {
  const openai = new OpenAiTestServer();
  const otlp = new OtlpReceiver();
  let app: SpawnedApp;
  let base: string;
  let dbName: string;

  beforeAll(async () => {
    await openai.start();
    await otlp.start();
    dbName = `${TEST_DB_PREFIX}${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE "${dbName}" TEMPLATE "${templateDb()}"`);
    const port = await freePort();
    app = spawnApp({
      DATABASE_URL: databaseUrl(dbName),
      DB_MIGRATIONS_RUN: 'false',
      PORT: String(port),
      AUTH_SECRET: SERVICE_SECRET,
      AUTH_RATE_LIMIT_PER_MINUTE: '10000',
      OPENAI_API_KEY: 'sk-test-openai',
      OPENAI_BASE_URL: openai.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      LOG_LEVEL: 'info',
    });
    base = `http://127.0.0.1:${port}`;
    await waitForStatus(app, `${base}/health/ready`, 200);
  }, BOOT_MS);
  afterAll(async () => {
    if (app.child.exitCode === null) {
      app.child.kill('SIGTERM');
      await app.exited;
    }
    await adminQuery(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await otlp.stop();
    await openai.stop();
  });

  it('gives one generate one trace with the server span, ours, pg and the provider call', async () => {
    const u = await signUp(
      base,
      `trace-${randomBytes(3).toString('hex')}@example.com`,
      app.mailDir,
    );
    const traceId = randomBytes(16).toString('hex');
    const res = await call(base, 'POST', '/api/ai/generate', {
      headers: {
        ...u.auth,
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
        'x-request-id': 'trace-test-request',
      },
      body: { modelId: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] },
    });
    expect(res.status).toBe(200);
    // The answer names a span of the same (continued) trace.
    expect(res.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const named = String(res.headers.traceparent).split('-')[2];

    const ours = [
      'credits.admit',
      'ai.provider.call',
      'credits.settle',
      'chats.saveExchange',
    ] as const;
    const inTrace = () => otlp.spans.filter((s) => s.traceId === traceId);
    // The exporter sends in batches: wait for the whole trace, bounded by the test's timeout.
    await waitFor(
      () =>
        ours.every((n) => inTrace().some((s) => s.name === n)) &&
        inTrace().some((s) => s.kind === 2),
    );

    const spans = inTrace();
    for (const name of ours) expect(spans.map((s) => s.name)).toContain(name);
    const server = spans.find((s) => s.kind === 2 && attr(s, 'http.request.method') === 'POST');
    expect(server).toBeDefined();
    expect(spans.map((s) => s.spanId)).toContain(named);
    // Every span of the request descends from the server span.
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const rootOf = (s: OtlpSpan): OtlpSpan =>
      s.parentSpanId && byId.has(s.parentSpanId) ? rootOf(byId.get(s.parentSpanId)!) : s;
    for (const s of spans) expect(rootOf(s).spanId).toBe(server!.spanId);
    expect(
      spans.some(
        (s) => attr(s, 'db.system') === 'postgresql' || attr(s, 'db.system.name') === 'postgresql',
      ),
    ).toBe(true);
    const provider = spans.find(
      (s) => s.kind === 3 && String(attr(s, 'url.full') ?? '').startsWith(openai.url),
    );
    expect(provider).toBeDefined();
    // The provider's HTTP call is inside our ai.provider.call span.
    const call_ = spans.find((s) => s.name === 'ai.provider.call')!;
    expect(provider!.parentSpanId).toBe(call_.spanId);

    // The request's log lines carry the trace id.
    const lines = app
      .output()
      .split('\n')
      .filter((l) => l.includes('"trace-test-request"'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(JSON.parse(line).trace_id).toBe(traceId);
  });
});
