import { resolve } from 'node:path';
import { resetDailyUsage } from './db';
import { load, type LoadResult } from './load';
import { listeningPort, spawnNode, stopChild } from './processes';
import { side } from './scenarios-http';
import { type BenchEnv, ROOT, signup } from './setup';
import { round } from './stats';
import { check, type ScenarioResult } from './types';
import type { BenchReply } from '../servers/provider-server';

export interface FailoverConfig {
  durationS: number;
  warmupS: number;
  connections: number;
  /** The providers' delay before whole replies (ms). */
  delayMs: number;
  /** Share of the first upstream's calls answered with 500. */
  failRate: number;
}

const errorsOf = (r: LoadResult) => r.non2xx + r.errors + r.timeouts;

/**
 * 13) Two upstreams for OpenAI: the environment's (the bench provider) and a second one added
 * through `POST /api/admin/upstreams` (a second provider process), same weight. The same load
 * of `POST /api/ai/generate` (50 connections) runs with both healthy, then with the first
 * answering 500 to `failRate` of its calls: the client must see no error, and the p50 must stay
 * within 5 ms of the healthy run. The second upstream is deleted afterwards.
 */
export async function failoverScenario(
  env: BenchEnv,
  cfg: FailoverConfig,
): Promise<ScenarioResult> {
  const second = spawnNode(
    'provider (second upstream)',
    ['-r', 'ts-node/register/transpile-only', resolve(ROOT, 'bench/servers/provider-server.ts')],
    { PATH: process.env.PATH, HOME: process.env.HOME },
    resolve(ROOT, '.data', 'bench-provider-2.log'),
  );
  const secondOrigin = `http://127.0.0.1:${await listeningPort(second)}`;
  const setSecond = async (reply: BenchReply) => {
    const res = await fetch(`${secondOrigin}/_bench/reply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(reply),
    });
    if (!res.ok) throw new Error(`second provider /_bench/reply answered ${res.status}`);
  };
  const admin = await signup(env.serviceOrigin, 'bench-upstreams-admin@example.com');
  await env.db.query(`UPDATE users SET role = 'ADMIN' WHERE id = $1`, [admin.id]);
  const adminHeaders = {
    authorization: `Bearer ${admin.token}`,
    'content-type': 'application/json',
  };
  const created = await fetch(`${env.serviceOrigin}/api/admin/upstreams`, {
    method: 'POST',
    headers: adminHeaders,
    body: JSON.stringify({
      provider: 'openai',
      name: 'bench-second',
      baseUrl: `${secondOrigin}/v1`,
      apiKey: 'sk-bench-local',
    }),
  });
  if (created.status !== 201) {
    throw new Error(
      `POST /api/admin/upstreams answered ${created.status}: ${await created.text()}`,
    );
  }
  const upstream = (await created.json()) as { id: string };
  const users = env.aiUsers.map((u) => u.id);
  const run = async () => {
    await resetDailyUsage(env.db, users);
    return load({
      url: `${env.serviceOrigin}/api/ai/generate`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      tokens: env.aiUsers.map((u) => u.token),
      body: JSON.stringify({
        modelId: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Say hello in five words.' }],
        maxTokens: 100,
      }),
      connections: cfg.connections,
      durationS: cfg.durationS,
      warmupS: cfg.warmupS,
    });
  };
  try {
    // Workers read the upstream rows again every 5 s: wait until every one routes to both.
    await new Promise((r) => setTimeout(r, 6000));
    await env.setReply({ generateDelayMs: cfg.delayMs });
    await setSecond({ generateDelayMs: cfg.delayMs });
    const healthy = await run();
    await env.setReply({ generateDelayMs: cfg.delayMs, failRate: cfg.failRate });
    const failing = await run();
    const listed = await fetch(`${env.serviceOrigin}/api/admin/upstreams`, {
      headers: adminHeaders,
    });
    const states = JSON.stringify(await listed.json()).slice(0, 600);
    return {
      id: 13,
      name: `two upstreams, the first failing ${round(100 * cfg.failRate)} % with 500 (${cfg.connections} conn., provider at ${cfg.delayMs} ms)`,
      measured: side('first upstream failing', failing),
      baseline: side('both healthy', healthy),
      ratio: round(failing.rps / healthy.rps, 3),
      ratioOf: 'req/s',
      checks: [
        check('errors seen by the client, failing run', errorsOf(failing), '', {
          kind: 'max',
          value: 0,
        }),
        check('added p50 over the healthy run', round(failing.p50 - healthy.p50), 'ms', {
          kind: 'max',
          value: 5,
        }),
        check('added p99 over the healthy run', round(failing.p99 - healthy.p99), 'ms'),
        check('errors seen by the client, healthy run', errorsOf(healthy), '', {
          kind: 'max',
          value: 0,
        }),
      ],
      notes: [`upstreams after the failing run: ${states}`],
    };
  } finally {
    await env.setReply({ generateDelayMs: cfg.delayMs });
    await fetch(`${env.serviceOrigin}/api/admin/upstreams/${upstream.id}`, {
      method: 'DELETE',
      headers: adminHeaders,
    });
    await stopChild(second);
  }
}
