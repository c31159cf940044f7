import { resolve } from 'node:path';
import {
  dbCounters,
  raiseBalance,
  resetStatements,
  seedDayOfRequests,
  topStatements,
  waitForSettled,
} from './db';
import { load, type LoadResult } from './load';
import { type Child, stopChild } from './processes';
import { profileShares } from './profile-shares';
import { side } from './scenarios-http';
import { type BenchEnv, type BenchUser, PROFILE_DIR, signup } from './setup';
import { round } from './stats';
import { check, type ScenarioResult } from './types';

export interface MeteringConfig {
  durationS: number;
  warmupS: number;
  connections: number;
  /** PRO users, one per connection in turn (20). */
  users: number;
  /** The provider's delay for the latency runs (ms). */
  delayMs: number;
  /** CONSUMPTION entries today of the "busy day" users (10 000). */
  dayRows: number;
}

/** One measured run of a service instance: load, CPU per request, statements and commits. */
interface Run {
  load: LoadResult;
  statementsPerRequest: number;
  commitsPerRequest: number;
}

const quiet = () => new Promise((r) => setTimeout(r, 1500));

/**
 * 12) The metering workload: `POST /api/ai/generate` of a new chat per request (no `chatId`),
 * PRO users with their consumption accumulating, 50 connections, provider delay 0, the
 * production build; each setting is its own service process on the same database, measured
 * one after the other against the bare pass-through proxy of the same run. Reports req/s, CPU
 * per request of the service's process tree and of PostgreSQL's, statements and commits per
 * request, the busiest statements, and a CPU profile's split of the service's time.
 */
export async function meteringScenario(
  env: BenchEnv,
  cfg: MeteringConfig,
  log: (line: string) => void,
): Promise<ScenarioResult[]> {
  const few = await proUsers(env, 'meter-few', cfg.users);
  const busy = await proUsers(env, 'meter-busy', cfg.users);
  await seedDayOfRequests(
    env.db,
    few.map((u) => u.id),
    10,
  );
  await seedDayOfRequests(
    env.db,
    busy.map((u) => u.id),
    cfg.dayRows,
  );
  const body = JSON.stringify({
    modelId: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Say hello in five words.' }],
    maxTokens: 100,
  });
  const request = (origin: string, who: BenchUser[]) => ({
    url: `${origin}/api/ai/generate`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    tokens: who.map((u) => u.token),
    body,
  });
  const measure = async (child: Child | undefined, req: ReturnType<typeof request>) => {
    await quiet();
    const before = await dbCounters(env.db);
    const result = await load({
      ...req,
      connections: cfg.connections,
      durationS: cfg.durationS,
      warmupS: cfg.warmupS,
      cpuPid: child?.pid,
      pgPid: env.pgPid,
    });
    await waitForSettled(env.db);
    await quiet();
    const after = await dbCounters(env.db);
    const per = (n: number) => round(n / (result.answered || 1), 2);
    return {
      load: result,
      statementsPerRequest: per(after.statements - before.statements),
      commitsPerRequest: per(after.commits - before.commits),
    };
  };
  const variant = async <T>(
    name: string,
    settings: NodeJS.ProcessEnv,
    fn: (origin: string, child: Child) => Promise<T>,
    args: string[] = [],
  ): Promise<T> => {
    log(`  ${name}…`);
    const { child, origin } = await env.startVariant(name, settings, args);
    try {
      return await fn(origin, child);
    } finally {
      await stopChild(child, 20_000);
    }
  };

  await env.setReply({ generateDelayMs: 0 });
  const proxy = await measure(env.proxy, request(env.proxyOrigin, few));
  const one = { WEB_CONCURRENCY: '1', BATCH_STATEMENTS: 'true' };
  let top: Awaited<ReturnType<typeof topStatements>> = [];
  const [oneFew, oneBusy] = await variant('one worker', one, async (origin, child) => {
    await resetStatements(env.db);
    const a = await measure(child, request(origin, few));
    top = await topStatements(env.db, 8);
    const b = await measure(child, request(origin, busy));
    return [a, b];
  });
  const two = await variant('two workers', { ...one, WEB_CONCURRENCY: '2' }, (origin, child) =>
    measure(child, request(origin, few)),
  );
  const byDefault = await variant(
    'default workers',
    { WEB_CONCURRENCY: undefined, BATCH_STATEMENTS: undefined },
    (origin, child) => measure(child, request(origin, few)),
  );
  const unbatched = await variant(
    'batching off',
    { ...one, BATCH_STATEMENTS: 'false' },
    (origin, child) => measure(child, request(origin, few)),
  );
  const profileName = `metering-${Date.now()}.cpuprofile`;
  const profArgs = [
    '--cpu-prof',
    `--cpu-prof-dir=${PROFILE_DIR}`,
    `--cpu-prof-name=${profileName}`,
  ];
  const window = await variant(
    'one worker, CPU profile',
    one,
    async (origin, child) => {
      const from = Date.now() - child.spawnedAt + cfg.warmupS * 1000 + 1500;
      await measure(child, request(origin, few));
      return [from, from + cfg.durationS * 1000] as const;
    },
    profArgs,
  );
  const profile = profileShares(resolve(PROFILE_DIR, profileName), window[0], window[1]);

  await env.setReply({ generateDelayMs: cfg.delayMs });
  const [proxySlow, oneSlow] = await variant(
    'one worker, slow provider',
    one,
    async (origin, child) => [
      await measure(env.proxy, request(env.proxyOrigin, few)),
      await measure(child, request(origin, few)),
    ],
  );
  return rows(
    cfg,
    { proxy, oneFew, oneBusy, two, byDefault, unbatched, proxySlow, oneSlow },
    top,
    profile,
  );
}

/** `n` new PRO users `bench-<prefix>-<i>@example.com` with 10 000 000 credits each. */
export async function proUsers(env: BenchEnv, prefix: string, n: number): Promise<BenchUser[]> {
  const out: BenchUser[] = [];
  for (let i = 1; i <= n; i++)
    out.push(await signup(env.serviceOrigin, `bench-${prefix}-${i}@example.com`));
  await raiseBalance(
    env.db,
    out.map((u) => u.id),
    10_000_000,
  );
  return out;
}

const cpuOf = (r: Run) => (r.load.cpuMsPerRequest ?? NaN) + (r.load.pgCpuMsPerRequest ?? NaN);
const errorsOf = (r: Run) => r.load.non2xx + r.load.errors + r.load.timeouts;

function rows(
  cfg: MeteringConfig,
  r: Record<
    'proxy' | 'oneFew' | 'oneBusy' | 'two' | 'byDefault' | 'unbatched' | 'proxySlow' | 'oneSlow',
    Run
  >,
  top: { query: string; calls: number; totalMs: number }[],
  profile: { busyMs: number; shares: [string, number][] },
): ScenarioResult[] {
  const name = (what: string) =>
    `metered generate, new chat each (${cfg.connections} conn.): ${what}`;
  const costChecks = (x: Run) => [
    check('service CPU per request (process tree)', x.load.cpuMsPerRequest ?? NaN, 'ms'),
    check('PostgreSQL CPU per request', x.load.pgCpuMsPerRequest ?? NaN, 'ms'),
    check('statements per request', x.statementsPerRequest, ''),
    check('commits per request', x.commitsPerRequest, ''),
  ];
  const perRequest = r.oneFew.load.cpuMsPerRequest ?? NaN;
  const all: Run[] = Object.values(r);
  return [
    {
      id: 12,
      name: name('one worker, delay 0'),
      measured: side('service, WEB_CONCURRENCY=1', r.oneFew.load),
      baseline: side('bare proxy', r.proxy.load),
      ratio: round(r.oneFew.load.rps / r.proxy.load.rps, 3),
      ratioOf: 'req/s',
      checks: [
        check('req/s ÷ bare proxy req/s', round(r.oneFew.load.rps / r.proxy.load.rps, 3), '', {
          kind: 'min',
          value: 0.5,
        }),
        check('service + PostgreSQL CPU per request', round(cpuOf(r.oneFew)), 'ms', {
          kind: 'max',
          value: 1.5,
        }),
        ...costChecks(r.oneFew),
        check('bare proxy CPU per request', r.proxy.load.cpuMsPerRequest ?? NaN, 'ms'),
        check(
          'errors (non-2xx, socket, timeouts), every run',
          all.reduce((n, x) => n + errorsOf(x), 0),
          '',
          { kind: 'max', value: 0 },
        ),
      ],
      notes: [
        `busiest statements (calls, total ms) over ${r.oneFew.load.answered} requests: ` +
          top.map((s) => `${s.calls}× ${round(s.totalMs)} ms ${s.query}`).join(' | '),
        `CPU profile of one worker (${round(profile.busyMs)} ms busy in the window; × ${perRequest} ms ` +
          'per request): ' +
          profile.shares
            .slice(0, 14)
            .map(([k, s]) => `${k} ${round(100 * s, 1)}% ≈ ${round(s * perRequest, 3)} ms`)
            .join(' | '),
      ],
    },
    {
      id: 12,
      name: name(`${cfg.dayRows} requests today against 10`),
      measured: side(`users with ${cfg.dayRows} entries today`, r.oneBusy.load),
      baseline: side('users with 10 entries today', r.oneFew.load),
      ratio: round(r.oneBusy.load.rps / r.oneFew.load.rps, 3),
      ratioOf: 'req/s',
      checks: [
        check(
          `CPU per request, ${cfg.dayRows} ÷ 10 entries today`,
          round(cpuOf(r.oneBusy) / cpuOf(r.oneFew), 3),
          '',
          { kind: 'max', value: 1.15 },
        ),
        ...costChecks(r.oneBusy),
      ],
    },
    {
      id: 12,
      name: name('two workers against one'),
      measured: side('WEB_CONCURRENCY=2', r.two.load),
      baseline: side('WEB_CONCURRENCY=1', r.oneFew.load),
      ratio: round(r.two.load.rps / r.oneFew.load.rps, 3),
      ratioOf: 'req/s',
      checks: costChecks(r.two),
    },
    {
      id: 12,
      name: name("the service's default worker count against one"),
      measured: side('WEB_CONCURRENCY unset', r.byDefault.load),
      baseline: side('WEB_CONCURRENCY=1', r.oneFew.load),
      ratio: round(r.byDefault.load.rps / r.oneFew.load.rps, 3),
      ratioOf: 'req/s',
      checks: [
        check(
          'default req/s ÷ one worker req/s',
          round(r.byDefault.load.rps / r.oneFew.load.rps, 3),
          '',
          { kind: 'min', value: 0.9 },
        ),
        ...costChecks(r.byDefault),
      ],
    },
    {
      id: 12,
      name: name('batching off against on'),
      measured: side('BATCH_STATEMENTS=false', r.unbatched.load),
      baseline: side('BATCH_STATEMENTS=true', r.oneFew.load),
      ratio: round(r.unbatched.load.rps / r.oneFew.load.rps, 3),
      ratioOf: 'req/s',
      checks: costChecks(r.unbatched),
    },
    {
      id: 12,
      name: name(`provider answering after ${cfg.delayMs} ms`),
      measured: side('service, WEB_CONCURRENCY=1', r.oneSlow.load),
      baseline: side('bare proxy', r.proxySlow.load),
      ratio: round(r.oneSlow.load.rps / r.proxySlow.load.rps, 3),
      ratioOf: 'req/s',
      checks: [
        check(
          'added p50 over the bare proxy',
          round(r.oneSlow.load.p50 - r.proxySlow.load.p50),
          'ms',
          { kind: 'max', value: 3 },
        ),
        check(
          'added p99 over the bare proxy',
          round(r.oneSlow.load.p99 - r.proxySlow.load.p99),
          'ms',
          { kind: 'max', value: 15 },
        ),
      ],
    },
  ];
}
