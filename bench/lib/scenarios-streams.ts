import { performance } from 'node:perf_hooks';
import { resetDailyUsage } from './db';
import { treeCpuMs, sampleRss } from './processes';
import type { BenchEnv } from './setup';
import { round, summarize } from './stats';
import {
  keepAliveAgent,
  lostChunks,
  pool,
  streamOnce,
  type StreamResult,
  type StreamTarget,
} from './streams';
import { check, type ScenarioResult } from './types';

export interface StreamConfig {
  sequential: number;
  concurrent: number;
  concurrency: number;
  chunks: number;
  chunkDelayMs: number;
  openStreams: number;
  openChunkDelayMs: number;
  uploadBytes: number;
}

const MB = 1024 * 1024;
const messages = [{ role: 'user', content: 'Tell me a short story.' }];

/** Reply text of `n` distinct pieces, so a lost or repeated chunk shows in the comparison. */
function expectedPieces(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `[chunk ${String(i).padStart(3, '0')} of ${n}] `);
}

function targets(
  env: BenchEnv,
  userIndex: () => number,
): { svc: () => StreamTarget; direct: StreamTarget; proxy: StreamTarget } {
  const svcAgent = keepAliveAgent();
  const direct: StreamTarget = {
    origin: env.providerOrigin,
    path: '/v1/chat/completions',
    headers: { authorization: 'Bearer sk-bench-local' },
    body: {
      model: 'gpt-4o-mini',
      messages,
      max_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
    },
    format: 'sse-openai',
    agent: keepAliveAgent(),
  };
  const svc = (): StreamTarget => ({
    origin: env.serviceOrigin,
    path: '/api/ai/stream',
    headers: { authorization: `Bearer ${env.aiUsers[userIndex() % env.aiUsers.length].token}` },
    body: { modelId: 'gpt-4o-mini', messages, maxTokens: 100 },
    format: 'text',
    agent: svcAgent,
  });
  const proxy: StreamTarget = {
    origin: env.proxyOrigin,
    path: '/api/ai/stream',
    headers: {},
    body: { modelId: 'gpt-4o-mini', messages, maxTokens: 100 },
    format: 'text',
    agent: keepAliveAgent(),
  };
  return { svc, direct, proxy };
}

const failed = (r: StreamResult, pieces: string[]) =>
  r.status !== 200 || !!r.error || lostChunks(pieces, r.text) > 0;

/** 4) POST /api/ai/stream: first token and whole stream, service against provider directly. */
export async function streamScenario(env: BenchEnv, cfg: StreamConfig): Promise<ScenarioResult> {
  const pieces = expectedPieces(cfg.chunks);
  await env.setReply({ text: pieces.join(''), chunks: cfg.chunks, chunkDelayMs: cfg.chunkDelayMs });
  await resetDailyUsage(
    env.db,
    env.aiUsers.map((u) => u.id),
  );
  let n = 0;
  const t = targets(env, () => n++);
  // Warm-up, then sequential triples (service, bare proxy and direct alternate, so all three see
  // the same machine), then each side at the same concurrency.
  for (const target of [t.svc, () => t.proxy, () => t.direct]) {
    await pool(20, 5, () => streamOnce(target()));
  }
  const seq: Record<'svc' | 'proxy' | 'direct', StreamResult[]> = {
    svc: [],
    proxy: [],
    direct: [],
  };
  for (let i = 0; i < cfg.sequential; i++) {
    seq.svc.push(await streamOnce(t.svc()));
    seq.proxy.push(await streamOnce(t.proxy));
    seq.direct.push(await streamOnce(t.direct));
  }
  const timed = async (fn: () => Promise<StreamResult[]>) => {
    const start = performance.now();
    const results = await fn();
    return { results, rps: round(results.length / ((performance.now() - start) / 1000), 1) };
  };
  const concurrent = (target: () => StreamTarget) =>
    timed(() => pool(cfg.concurrent, cfg.concurrency, () => streamOnce(target())));
  const conDirect = await concurrent(() => t.direct);
  const conProxy = await concurrent(() => t.proxy);
  const cpuBefore = treeCpuMs(env.service.pid);
  const conSvc = await concurrent(t.svc);
  const cpuPerStream = round((treeCpuMs(env.service.pid) - cpuBefore) / conSvc.results.length);

  const ok = (rs: StreamResult[]) => rs.filter((r) => r.status === 200 && !r.error);
  const ttft = (rs: StreamResult[]) => summarize(ok(rs).map((r) => r.ttftMs));
  const total = (rs: StreamResult[]) => summarize(ok(rs).map((r) => r.totalMs));
  const [sT, pT, dT] = [ttft(seq.svc), ttft(seq.proxy), ttft(seq.direct)];
  const [sTot, pTot] = [total(seq.svc), total(seq.proxy)];
  const [cT, cpT, cdT] = [ttft(conSvc.results), ttft(conProxy.results), ttft(conDirect.results)];
  const seqSvc = seq.svc;
  const allSvc = [...seqSvc, ...conSvc.results];
  const lost = allSvc.reduce((k, r) => k + (r.status === 200 ? lostChunks(pieces, r.text) : 0), 0);
  const errors = allSvc.filter((r) => r.status !== 200 || r.error).length;
  const r2 = (x: number) => round(x);
  return {
    id: 4,
    name: `POST /api/ai/stream (${cfg.chunks} chunks, ${cfg.chunkDelayMs} ms apart; time to first token)`,
    measured: {
      label: 'service',
      rps: conSvc.rps,
      p50: r2(sT.p50),
      p99: r2(sT.p99),
      detail: { ttftSequential: sT, totalSequential: sTot, ttftConcurrent: cT },
    },
    baseline: {
      label: 'bare proxy',
      rps: conProxy.rps,
      p50: r2(pT.p50),
      p99: r2(pT.p99),
      detail: { ttftSequential: pT, totalSequential: pTot, ttftConcurrent: cpT },
    },
    ratio: round(conSvc.rps / conProxy.rps, 3),
    ratioOf: `streams/s at concurrency ${cfg.concurrency}`,
    checks: [
      check(
        `added to first token p50 over the bare proxy (concurrency ${cfg.concurrency})`,
        r2(cT.p50 - cpT.p50),
        'ms',
        { kind: 'max', value: 3 },
      ),
      check(
        `added to first token p99 over the bare proxy (concurrency ${cfg.concurrency})`,
        r2(cT.p99 - cpT.p99),
        'ms',
      ),
      check(
        `added to first token p50 over the bare proxy (${cfg.sequential} sequential)`,
        r2(sT.p50 - pT.p50),
        'ms',
      ),
      check(
        'added to whole stream p50 over the bare proxy (sequential)',
        r2(sTot.p50 - pTot.p50),
        'ms',
      ),
      check(`added to first token p50 over the provider (sequential)`, r2(sT.p50 - dT.p50), 'ms'),
      check(
        `added to first token p50 over the provider (concurrency ${cfg.concurrency})`,
        r2(cT.p50 - cdT.p50),
        'ms',
      ),
      check(`chunks lost (of ${allSvc.length} streams × ${cfg.chunks})`, lost, '', {
        kind: 'max',
        value: 0,
      }),
      check('stream errors', errors, '', { kind: 'max', value: 0 }),
      check('service CPU per stream', cpuPerStream, 'ms'),
    ],
    notes: [
      `sequential: ${cfg.sequential} triples; concurrent: ${cfg.concurrent} per side at ${cfg.concurrency}`,
      `provider directly: first token p50 ${r2(dT.p50)} ms sequential, ${r2(cdT.p50)} ms at ` +
        `${cfg.concurrency}; ${conDirect.rps} streams/s`,
    ],
  };
}

/** 5) Many streams open at once, slow provider: peak RSS of the service and errors. */
export async function openStreamsScenario(
  env: BenchEnv,
  cfg: StreamConfig,
): Promise<ScenarioResult> {
  const chunks = 10;
  const pieces = expectedPieces(chunks);
  await env.setReply({ text: pieces.join(''), chunks, chunkDelayMs: cfg.openChunkDelayMs });
  await resetDailyUsage(
    env.db,
    env.aiUsers.map((u) => u.id),
  );
  let n = 0;
  const t = targets(env, () => n++);
  const rss = sampleRss(env.service.pid);
  const start = performance.now();
  const results = await pool(cfg.openStreams, cfg.openStreams, () => streamOnce(t.svc()));
  const seconds = (performance.now() - start) / 1000;
  const mem = rss.stop();
  const errors = results.filter((r) => failed(r, pieces));
  const ok = results.filter((r) => !failed(r, pieces));
  const tt = summarize(ok.map((r) => r.ttftMs));
  const tot = summarize(ok.map((r) => r.totalMs));
  const mb = (b: number) => round(b / MB, 1);
  return {
    id: 5,
    name: `${cfg.openStreams} concurrent open streams (${chunks} chunks, ${cfg.openChunkDelayMs} ms apart)`,
    measured: {
      label: 'service, peak RSS',
      rps: round(results.length / seconds, 1),
      p50: round(tot.p50),
      p99: round(tot.p99),
      detail: {
        peakRssMB: mb(mem.peak),
        peakSource: mem.peakSource,
        ttft: tt,
        total: tot,
        firstErrors: errors.slice(0, 3).map((e) => e.error ?? `status ${e.status}`),
      },
    },
    baseline: { label: 'service, idle RSS', detail: { rssMB: mb(mem.before) } },
    ratio: round(mem.peak / mem.before, 2),
    ratioOf: 'peak RSS / idle RSS',
    checks: [
      check('peak RSS', mb(mem.peak), 'MB'),
      check('RSS growth', mb(mem.peak - mem.before), 'MB'),
      check(
        'RSS growth per open stream',
        round((mem.peak - mem.before) / cfg.openStreams / 1024, 1),
        'KB',
      ),
      check('first token p99 with all open', round(tt.p99), 'ms'),
      check(`errors (failed or incomplete of ${cfg.openStreams})`, errors.length, '', {
        kind: 'max',
        value: 0,
      }),
    ],
    notes: ['req/s = streams completed per second; p50/p99 = whole-stream time'],
  };
}
