import { resetDailyUsage } from './db';
import { load, type LoadOptions, type LoadResult } from './load';
import type { BenchEnv } from './setup';
import { round } from './stats';
import { check, type ScenarioResult, type Side } from './types';

export interface HttpConfig {
  durationS: number;
  warmupS: number;
  connections: number;
  generateConnections: number;
  generateDelayMs: number;
}

export const side = (label: string, r: LoadResult): Side => ({
  label,
  rps: r.rps,
  p50: r.p50,
  p99: r.p99,
  detail: r as unknown as Record<string, unknown>,
});

const errorsOf = (r: LoadResult) => r.non2xx + r.errors + r.timeouts;

/** Load with a warm-up (JIT, pools, connections, the connections' first burst), discarded. */
export function measured(cfg: HttpConfig, opts: Parameters<typeof load>[0]): Promise<LoadResult> {
  return load({ ...opts, warmupS: cfg.warmupS });
}

/** The ceiling: GET /health/live on the bare Node server. */
export function bareBaseline(env: BenchEnv, cfg: HttpConfig): Promise<LoadResult> {
  return measured(cfg, {
    url: `${env.bareOrigin}/health/live`,
    connections: cfg.connections,
    durationS: cfg.durationS,
  });
}

/** 1) GET /health/live: the service against the bare Node server (the ceiling). */
export async function healthScenario(
  env: BenchEnv,
  cfg: HttpConfig,
): Promise<{ result: ScenarioResult; bare: LoadResult }> {
  const common = { connections: cfg.connections, durationS: cfg.durationS };
  const bare = await bareBaseline(env, cfg);
  const svc = await measured(cfg, {
    ...common,
    url: `${env.serviceOrigin}/health/live`,
    cpuPid: env.service.pid,
  });
  return {
    bare,
    result: {
      id: 1,
      name: 'GET /health/live',
      measured: side('service', svc),
      baseline: side('bare Node http', bare),
      ratio: round(svc.rps / bare.rps, 3),
      ratioOf: 'req/s',
      checks: [
        check('service CPU per request', svc.cpuMsPerRequest ?? NaN, 'ms'),
        check('errors (non-2xx, socket, timeouts)', errorsOf(svc), ''),
      ],
    },
  };
}

/** 2) GET /api/chats with a session (50 chats × 20 messages) against the bare Node ceiling. */
export async function chatsScenario(
  env: BenchEnv,
  cfg: HttpConfig,
  bare: LoadResult,
): Promise<ScenarioResult> {
  const url = `${env.serviceOrigin}/api/chats`;
  const svc = await measured(cfg, {
    url,
    connections: cfg.connections,
    durationS: cfg.durationS,
    tokens: [env.chatsUser.token],
    cpuPid: env.service.pid,
  });
  // Reference: the bare server answering the same JSON (stringified per request).
  const answer = await fetch(url, { headers: { authorization: `Bearer ${env.chatsUser.token}` } });
  await fetch(`${env.bareOrigin}/_bench/payload`, { method: 'POST', body: await answer.text() });
  const samePayload = await measured(cfg, {
    url: `${env.bareOrigin}/payload`,
    connections: cfg.connections,
    durationS: cfg.durationS,
  });
  const ratio = round(svc.rps / bare.rps, 3);
  return {
    id: 2,
    name: `GET /api/chats (${env.seeded.chats} chats × ${env.seeded.messages / env.seeded.chats} messages)`,
    measured: side('service', svc),
    baseline: side('bare Node /health/live (1)', bare),
    ratio,
    ratioOf: 'req/s',
    checks: [
      check('req/s as a share of bare Node', round(ratio * 100, 1), '%', {
        kind: 'min',
        value: 25,
      }),
      check('response size', svc.bytesPerResponse, 'bytes'),
      check('service CPU per request', svc.cpuMsPerRequest ?? NaN, 'ms'),
      check('bare Node answering the same JSON', samePayload.rps, 'req/s'),
      check(
        'req/s as a share of bare Node with the same JSON',
        round((100 * svc.rps) / samePayload.rps, 1),
        '%',
      ),
      check('errors (non-2xx, socket, timeouts)', errorsOf(svc), ''),
    ],
    notes: [`${svc.bytesPerResponse} bytes per answer`],
  };
}

/**
 * 3) POST /api/ai/generate through the service against the bare pass-through proxy (same body,
 * same SDK, no metering) and the provider directly: at the provider delay of `cfg` (latency added
 * over the proxy, connections started together and spread over one delay), then at delay 0
 * (throughput: the service's req/s as a share of the proxy's, and CPU per request).
 */
export async function generateScenario(env: BenchEnv, cfg: HttpConfig): Promise<ScenarioResult> {
  const users = env.aiUsers.map((u) => u.id);
  const messages = [{ role: 'user', content: 'Say hello in five words.' }];
  const json = { 'content-type': 'application/json' };
  const body = JSON.stringify({ modelId: 'gpt-4o-mini', messages, maxTokens: 100 });
  const direct = {
    url: `${env.providerOrigin}/v1/chat/completions`,
    method: 'POST' as const,
    headers: { ...json, authorization: 'Bearer sk-bench-local' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages, max_tokens: 100 }),
  };
  const proxy = {
    url: `${env.proxyOrigin}/api/ai/generate`,
    method: 'POST' as const,
    headers: json,
    body,
  };
  const svc = {
    url: `${env.serviceOrigin}/api/ai/generate`,
    method: 'POST' as const,
    headers: json,
    tokens: env.aiUsers.map((u) => u.token),
    body,
    serverTiming: true,
    cpuPid: env.service.pid,
    pgPid: env.pgPid,
  };
  const common = { connections: cfg.generateConnections, durationS: cfg.durationS };
  const run = async (req: Omit<LoadOptions, 'connections' | 'durationS'>, extra = {}) => {
    await resetDailyUsage(env.db, users);
    return measured(cfg, { ...common, ...req, ...extra });
  };
  // With a fixed upstream delay, connections started together keep arriving together (a closed
  // loop never spreads them); the `spread` runs start them one by one over one delay instead, as
  // independent users arrive.
  const spread = { staggerMs: cfg.generateDelayMs };
  await env.setReply({ generateDelayMs: cfg.generateDelayMs });
  const d = await run(direct);
  const p = await run(proxy);
  const s = await run(svc);
  const pSpread = await run(proxy, spread);
  const sSpread = await run(svc, spread);
  await env.setReply({ generateDelayMs: 0 });
  const p0 = await run(proxy);
  const s0 = await run(svc);
  const d0 = await run(direct);
  await env.setReply({ generateDelayMs: cfg.generateDelayMs });
  const app = s.serverTiming?.app ?? { p50: NaN, p99: NaN };
  const cpu = s0.cpuMsPerRequest ?? NaN;
  const pg = s0.pgCpuMsPerRequest ?? NaN;
  return {
    id: 3,
    name: `POST /api/ai/generate (provider answers after ${cfg.generateDelayMs} ms, ${cfg.generateConnections} connections)`,
    measured: side('service', s),
    baseline: side('bare proxy', p),
    ratio: round(s.rps / p.rps, 3),
    ratioOf: 'req/s',
    checks: [
      check('delay 0: service req/s ÷ bare proxy req/s', round(s0.rps / p0.rps, 3), '', {
        kind: 'min',
        value: 0.6,
      }),
      check('delay 0: service req/s', s0.rps, 'req/s'),
      check('delay 0: bare proxy req/s', p0.rps, 'req/s'),
      check('delay 0: provider directly req/s', d0.rps, 'req/s'),
      check('delay 0: service CPU per request (all workers)', cpu, 'ms'),
      check('delay 0: PostgreSQL CPU per request', pg, 'ms'),
      check('added latency p50 over the bare proxy', round(s.p50 - p.p50), 'ms', {
        kind: 'max',
        value: 3,
      }),
      check('added latency p99 over the bare proxy', round(s.p99 - p.p99), 'ms', {
        kind: 'max',
        value: 15,
      }),
      check(
        `added p50 over the proxy, started over ${cfg.generateDelayMs} ms`,
        round(sSpread.p50 - pSpread.p50),
        'ms',
        { kind: 'max', value: 3 },
      ),
      check(
        `added p99 over the proxy, started over ${cfg.generateDelayMs} ms`,
        round(sSpread.p99 - pSpread.p99),
        'ms',
        { kind: 'max', value: 15 },
      ),
      check('added latency p50 over the provider directly', round(s.p50 - d.p50), 'ms'),
      check('Server-Timing app;dur p50', app.p50, 'ms'),
      check('Server-Timing app;dur p99', app.p99, 'ms'),
      check(
        'errors (non-2xx, socket, timeouts)',
        errorsOf(s) + errorsOf(sSpread) + errorsOf(s0),
        '',
        { kind: 'max', value: 0 },
      ),
    ],
    notes: [
      `provider directly: p50 ${d.p50} / p99 ${d.p99} ms, ${d.rps} req/s; started over ` +
        `${cfg.generateDelayMs} ms: service p50 ${sSpread.p50} / p99 ${sSpread.p99}, proxy p50 ` +
        `${pSpread.p50} / p99 ${pSpread.p99} ms`,
      `delay 0: service p50 ${s0.p50} / p99 ${s0.p99} ms, proxy p50 ${p0.p50} / p99 ${p0.p99} ms`,
    ],
  };
}
