import { resetDailyUsage } from './db';
import { measured, side, type HttpConfig } from './scenarios-http';
import type { BenchEnv } from './setup';
import { round } from './stats';
import { check, type ScenarioResult } from './types';

/**
 * 7) POST /v1/chat/completions with a personal API key against POST /api/ai/generate
 * with a session, same users, same model and provider delay: what the key lookup, the key's
 * daily-limit check in admission and the OpenAI wire translation add. Both are fully metered.
 */
export async function gatewayScenario(env: BenchEnv, cfg: HttpConfig): Promise<ScenarioResult> {
  await env.setReply({ generateDelayMs: cfg.generateDelayMs });
  const ids = env.aiUsers.map((u) => u.id);
  const keys = await Promise.all(
    env.aiUsers.map(async (u) => {
      const res = await fetch(`${env.serviceOrigin}/api/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${u.token}` },
        // A cap far above the run's use, so the per-key check runs on every request.
        body: JSON.stringify({ name: 'bench', dailyCreditLimit: 100_000_000 }),
      });
      if (res.status !== 201) throw new Error(`POST /api/keys answered ${res.status}`);
      return ((await res.json()) as { key: string }).key;
    }),
  );
  const messages = [{ role: 'user', content: 'Say hello in five words.' }];
  const common = {
    connections: cfg.generateConnections,
    durationS: cfg.durationS,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    cpuPid: env.service.pid,
  };
  await resetDailyUsage(env.db, ids);
  const session = await measured(cfg, {
    ...common,
    url: `${env.serviceOrigin}/api/ai/generate`,
    tokens: env.aiUsers.map((u) => u.token),
    body: JSON.stringify({ modelId: 'gpt-4o-mini', messages, maxTokens: 100 }),
  });
  await resetDailyUsage(env.db, ids);
  const viaKey = await measured(cfg, {
    ...common,
    url: `${env.serviceOrigin}/v1/chat/completions`,
    tokens: keys,
    body: JSON.stringify({ model: 'gpt-4o-mini', messages, max_tokens: 100 }),
  });
  return {
    id: 7,
    name: `POST /v1/chat/completions with an API key vs /api/ai/generate with a session (provider after ${cfg.generateDelayMs} ms, ${cfg.generateConnections} connections)`,
    measured: side('/v1 + API key', viaKey),
    baseline: side('/api/ai/generate + session', session),
    ratio: round(viaKey.rps / session.rps, 3),
    ratioOf: 'req/s',
    checks: [
      check('added latency p50 (/v1 p50 − generate p50)', round(viaKey.p50 - session.p50), 'ms'),
      check('added latency p99 (/v1 p99 − generate p99)', round(viaKey.p99 - session.p99), 'ms'),
      check(
        'errors or non-2xx answers of /v1',
        viaKey.non2xx + viaKey.errors + viaKey.timeouts,
        '',
        {
          kind: 'max',
          value: 0,
        },
      ),
    ],
  };
}
