import { resetDailyUsage } from './db';
import { load, type LoadResult } from './load';
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

/** 3) POST /api/ai/generate through the service against the same request straight upstream. */
export async function generateScenario(env: BenchEnv, cfg: HttpConfig): Promise<ScenarioResult> {
  await env.setReply({ generateDelayMs: cfg.generateDelayMs });
  await resetDailyUsage(
    env.db,
    env.aiUsers.map((u) => u.id),
  );
  const messages = [{ role: 'user', content: 'Say hello in five words.' }];
  const common = { connections: cfg.generateConnections, durationS: cfg.durationS };
  const json = { 'content-type': 'application/json' };
  const directReq = {
    url: `${env.providerOrigin}/v1/chat/completions`,
    method: 'POST' as const,
    headers: { ...json, authorization: 'Bearer sk-bench-local' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages, max_tokens: 100 }),
  };
  const svcReq = {
    url: `${env.serviceOrigin}/api/ai/generate`,
    method: 'POST' as const,
    headers: json,
    tokens: env.aiUsers.map((u) => u.token),
    body: JSON.stringify({ modelId: 'gpt-4o-mini', messages, maxTokens: 100 }),
    serverTiming: true,
    cpuPid: env.service.pid,
  };
  const direct = await measured(cfg, { ...common, ...directReq });
  await resetDailyUsage(
    env.db,
    env.aiUsers.map((u) => u.id),
  );
  const svc = await measured(cfg, { ...common, ...svcReq });
  const app = svc.serverTiming?.app ?? { p50: NaN, p99: NaN };
  // The same load with the connections started one by one over one provider delay: with a fixed
  // upstream delay, connections started together keep arriving together (a closed loop never
  // spreads them), so the run above measures that herd; this one, independent users.
  const staggered = { ...common, staggerMs: cfg.generateDelayMs };
  await resetDailyUsage(
    env.db,
    env.aiUsers.map((u) => u.id),
  );
  const directSpread = await measured(cfg, { ...directReq, ...staggered });
  const svcSpread = await measured(cfg, { ...svcReq, ...staggered });
  return {
    id: 3,
    name: `POST /api/ai/generate (provider answers after ${cfg.generateDelayMs} ms, ${cfg.generateConnections} connections)`,
    measured: side('service', svc),
    baseline: side('provider directly', direct),
    ratio: round(svc.rps / direct.rps, 3),
    ratioOf: 'req/s',
    checks: [
      check('added latency p50 (service p50 − direct p50)', round(svc.p50 - direct.p50), 'ms', {
        kind: 'max',
        value: 3,
      }),
      check('added latency p99 (service p99 − direct p99)', round(svc.p99 - direct.p99), 'ms', {
        kind: 'max',
        value: 10,
      }),
      check(
        `added latency p50, connections started over ${cfg.generateDelayMs} ms`,
        round(svcSpread.p50 - directSpread.p50),
        'ms',
        { kind: 'max', value: 3 },
      ),
      check(
        `added latency p99, connections started over ${cfg.generateDelayMs} ms`,
        round(svcSpread.p99 - directSpread.p99),
        'ms',
        { kind: 'max', value: 10 },
      ),
      check('Server-Timing app;dur p50', app.p50, 'ms'),
      check('service CPU per request', svc.cpuMsPerRequest ?? NaN, 'ms'),
      check('Server-Timing app;dur p99', app.p99, 'ms'),
      check('errors (non-2xx, socket, timeouts)', errorsOf(svc) + errorsOf(svcSpread), ''),
    ],
    notes: [
      `started over ${cfg.generateDelayMs} ms: service p50 ${svcSpread.p50} / p99 ${svcSpread.p99} ms, ` +
        `direct p50 ${directSpread.p50} / p99 ${directSpread.p99} ms, ` +
        `app;dur p50 ${svcSpread.serverTiming?.app?.p50} / p99 ${svcSpread.serverTiming?.app?.p99} ms`,
    ],
  };
}
