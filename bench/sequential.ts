import http from 'node:http';
import { treeCpuMs } from './lib/processes';
import { setup } from './lib/setup';
import { percentile, round } from './lib/stats';

/**
 * `npm run bench:sequential`: one request at a time, no queueing, so each line is the pure
 * per-request cost: service CPU time (ms, user + system, from /proc) and client latency (p50, p90
 * ms) for GET /health/live, GET /api/auth/session, GET /api/chats (50 chats × 20 messages) and
 * POST /api/ai/generate (provider answering at once), the same body through the bare proxy
 * (its CPU in the service columns), and the same request straight to the provider. PostgreSQL's
 * CPU (postmaster and backends) is counted beside the service's (primary and workers). CPU per request moves far less with the shared machine's load than latencies
 * under concurrency do, so this is the number to compare two builds with (run them alternately).
 * Needs `nest build` first (the npm script does it). BENCH_SEQ_N scales the request counts.
 */
const scale = Number(process.env.BENCH_SEQ_N ?? 1);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function timed(url: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const req = http.request(url, { agent, method: body ? 'POST' : 'GET', headers }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode && res.statusCode < 300
          ? resolve(performance.now() - t)
          : reject(new Error(`${url} answered ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function main(): Promise<void> {
  const env = await setup({
    aiUsers: 1,
    credits: 10_000_000,
    chats: 50,
    messagesPerChat: 20,
    uploadMaxBytes: 1 << 20,
    cpuProf: process.env.BENCH_CPU_PROF === '1',
    log: (line) => process.stderr.write(`[bench] ${line}\n`),
  });
  try {
    await env.setReply({ generateDelayMs: 0 });
    const json = { 'content-type': 'application/json' };
    const ai = { ...json, authorization: `Bearer ${env.aiUsers[0].token}` };
    const messages = [{ role: 'user', content: 'Say hello in five words.' }];
    const generate = JSON.stringify({ modelId: 'gpt-4o-mini', messages, maxTokens: 100 });
    const upstream = JSON.stringify({ model: 'gpt-4o-mini', messages, max_tokens: 100 });
    const svc = env.serviceOrigin;
    const cases: [string, number, () => Promise<number>][] = [
      ['GET /health/live', 3000, () => timed(`${svc}/health/live`, {})],
      ['GET /api/auth/session', 3000, () => timed(`${svc}/api/auth/session`, ai)],
      [
        'GET /api/chats',
        300,
        () => timed(`${svc}/api/chats`, { authorization: `Bearer ${env.chatsUser.token}` }),
      ],
      ['POST /api/ai/generate', 1000, () => timed(`${svc}/api/ai/generate`, ai, generate)],
      [
        'bare proxy generate',
        1000,
        () => timed(`${env.proxyOrigin}/api/ai/generate`, json, generate),
      ],
      [
        'provider directly',
        1000,
        () =>
          timed(
            `${env.providerOrigin}/v1/chat/completions`,
            { ...json, authorization: 'Bearer sk-bench-local' },
            upstream,
          ),
      ],
    ];
    console.log(
      '| request | n | service CPU ms/request | PostgreSQL CPU ms/request | both | p50 ms | p90 ms |\n' +
        '|---|---:|---:|---:|---:|---:|---:|',
    );
    for (const [name, count, send] of cases) {
      const n = Math.max(10, Math.round(count * scale));
      for (let i = 0; i < Math.min(200, n); i++) await send(); // warm-up: JIT, pools
      // Keep the PRO daily limit out of the way; amounts (and the ledger invariant) unchanged.
      await env.db.query(
        `UPDATE credit_transactions SET "createdAt" = now() - interval '2 days' WHERE type = 'CONSUMPTION'`,
      );
      const pid = name === 'bare proxy generate' ? env.proxy.pid : env.service.pid;
      const before = [treeCpuMs(pid), treeCpuMs(env.pgPid)];
      const latencies: number[] = [];
      for (let i = 0; i < n; i++) latencies.push(await send());
      const cpu = (treeCpuMs(pid) - before[0]) / n;
      const pg = (treeCpuMs(env.pgPid) - before[1]) / n;
      const cells =
        name === 'provider directly' ? ['–', '–', '–'] : [cpu, pg, cpu + pg].map((x) => round(x));
      console.log(
        `| ${name} | ${n} | ${cells.join(' | ')} | ${round(percentile(latencies, 50))} | ${round(percentile(latencies, 90))} |`,
      );
    }
  } finally {
    await env.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
