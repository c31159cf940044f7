import type { Client } from 'pg';
import { dbCounters, resetDailyUsage, statementCalls, waitForSettled } from './db';
import { type CeilingsConfig, ceilingsRow, type Phase } from './ceilings-report';
import { load, type LoadResult } from './load';
import { stopChild } from './processes';
import { proUsers } from './scenario-metering';
import { type BenchEnv, signup } from './setup';
import { round } from './stats';
import type { ScenarioResult } from './types';

const quiet = () => new Promise((r) => setTimeout(r, 1500));
const ONE_WORKER = { WEB_CONCURRENCY: '1', BATCH_STATEMENTS: 'true' };

/**
 * 14) The cost of `rpm`/`tpm` ceilings: the metering workload of (12) (`POST /api/ai/generate`
 * of a new chat per request, 20 PRO users, 50 connections, provider at 0 ms, one worker) routed
 * through one upstream row added by `POST /api/admin/upstreams` (priority 10, above
 * `env:openai`), without ceilings and with `rpm`/`tpm` so high they never refuse (set by
 * `PATCH`): the only difference is the counting. Each run is its own service process, started
 * after the row was changed; `cfg.rounds` pairs, the order alternating (one row each). Checks
 * that `upstream_usage` (Σ requests over the upstream's rows) counts exactly the calls the
 * provider received, and nothing without ceilings.
 */
export async function ceilingsScenario(
  env: BenchEnv,
  cfg: CeilingsConfig,
  log: (line: string) => void,
): Promise<ScenarioResult[]> {
  const who = await proUsers(env, 'ceil', cfg.users);
  const ids = who.map((u) => u.id);
  const admin = await signup(env.serviceOrigin, 'bench-ceilings-admin@example.com');
  await env.db.query(`UPDATE users SET role = 'ADMIN' WHERE id = $1`, [admin.id]);
  const adminApi = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${env.serviceOrigin}/api/admin/upstreams${path}`, {
      method,
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok)
      throw new Error(`${method} /api/admin/upstreams${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
  const upstream = await adminApi('POST', '', {
    provider: 'openai',
    name: 'bench-ceilings',
    baseUrl: `${env.providerOrigin}/v1`,
    apiKey: 'sk-bench-local',
    models: ['gpt-4o-mini'],
    priority: 10,
  });
  const providerCalls = async () => {
    const res = await fetch(`${env.providerOrigin}/_bench/calls`);
    return ((await res.json()) as { calls: number }).calls;
  };

  // Sets the row's ceilings (or clears them), then measures a service process started after.
  const phase = async (ceilings: boolean): Promise<Phase> => {
    const name = `upstream ${ceilings ? 'with' : 'without'} ceilings`;
    log(`  ${name}…`);
    await adminApi('PATCH', `/${upstream.id}`, {
      rpm: ceilings ? cfg.rpm : null,
      tpm: ceilings ? cfg.tpm : null,
    });
    await resetDailyUsage(env.db, ids);
    const callsBefore = await providerCalls();
    const countedBefore = await usageOf(env.db, upstream.id);
    const { child, origin } = await env.startVariant(name, ONE_WORKER);
    let result: LoadResult;
    let before: Awaited<ReturnType<typeof dbCounters>>;
    let after: typeof before;
    let callsOf: Map<string, number>;
    try {
      await quiet();
      before = await dbCounters(env.db);
      const statementsBefore = await statementCalls(env.db);
      result = await load({
        url: `${origin}/api/ai/generate`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        tokens: who.map((u) => u.token),
        body: JSON.stringify({
          modelId: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'Say hello in five words.' }],
          maxTokens: 100,
        }),
        connections: cfg.connections,
        durationS: cfg.durationS,
        warmupS: cfg.warmupS,
        cpuPid: child.pid,
        pgPid: env.pgPid,
      });
      await waitForSettled(env.db);
      await quiet();
      after = await dbCounters(env.db);
      callsOf = await statementCalls(env.db);
      for (const [q, n] of statementsBefore) callsOf.set(q, (callsOf.get(q) ?? 0) - n);
    } finally {
      // A graceful stop: the service writes the counts it still holds before it exits.
      await stopChild(child, 20_000);
    }
    const countedAfter = await usageOf(env.db, upstream.id);
    const per = (n: number, digits = 2) => round(n / (result.answered || 1), digits);
    return {
      load: result,
      statementsPerRequest: per(after.statements - before.statements),
      commitsPerRequest: per(after.commits - before.commits),
      perStatement: new Map([...callsOf].map(([q, n]) => [q, per(n, 4)])),
      providerCalls: (await providerCalls()) - callsBefore,
      counted: {
        requests: countedAfter.requests - countedBefore.requests,
        tokens: countedAfter.tokens - countedBefore.tokens,
        rows: countedAfter.rows,
      },
      charged: await chargedToday(env.db, ids),
    };
  };

  try {
    await env.setReply({ generateDelayMs: 0 });
    const rows: ScenarioResult[] = [];
    for (let i = 0; i < cfg.rounds; i++) {
      if (i % 2 === 0) {
        const off = await phase(false);
        rows.push(ceilingsRow(cfg, await phase(true), off, 'without first'));
      } else {
        const on = await phase(true);
        rows.push(ceilingsRow(cfg, on, await phase(false), 'with first'));
      }
    }
    return rows;
  } finally {
    await resetDailyUsage(env.db, ids);
    await adminApi('DELETE', `/${upstream.id}`);
  }
}

/** Σ requests and tokens of `upstream_usage` for the upstream, and its number of rows. */
async function usageOf(
  db: Client,
  upstreamId: string,
): Promise<{ requests: number; tokens: number; rows: number }> {
  const { rows } = await db.query(
    `SELECT COALESCE(sum(requests), 0)::float8 AS requests,
       COALESCE(sum(tokens), 0)::float8 AS tokens, count(*)::int AS rows
     FROM upstream_usage WHERE "upstreamId" = $1`,
    [upstreamId],
  );
  return rows[0];
}

/** The users' CONSUMPTION entries dated today (resetDailyUsage moved the earlier ones back). */
async function chargedToday(
  db: Client,
  userIds: string[],
): Promise<{ requests: number; tokens: number }> {
  const { rows } = await db.query(
    `SELECT count(*)::float8 AS requests,
       COALESCE(sum("promptTokens" + "completionTokens"), 0)::float8 AS tokens
     FROM credit_transactions
     WHERE type = 'CONSUMPTION' AND "userId" = ANY($1::uuid[])
       AND "createdAt" > now() - interval '1 day'`,
    [userIds],
  );
  return rows[0];
}
