import { existsSync } from 'node:fs';
import type { Client } from 'pg';
import { checkLedger, connect, raiseBalance } from './db';
import { stopChild } from './processes';

import {
  errorsOf,
  measureRun,
  ratioOf,
  runSide,
  type RunConfig,
  serviceCpu,
  type ServiceRun,
  totalCpu,
} from './service-run';
import { type BenchEnv, type BenchUser, SERVICE_ENTRY, signup } from './setup';
import { check, type ScenarioResult } from './types';

export interface BuildsConfig extends RunConfig {
  /** PRO users of each build, one per connection in turn (20). */
  users: number;
  /** Pairs of runs; the first starts with this build, the next with the other, and so on. */
  rounds: number;
}

/** One build under test: its entry, its own database and users. */
interface Build {
  label: string;
  entry: string;
  url: string;
  db: Client;
  users: BenchUser[];
}

const ONE_WORKER = { WEB_CONCURRENCY: '1', BATCH_STATEMENTS: 'true' };
const exact = { kind: 'max' as const, value: 0 };

/**
 * 16) Two builds side by side on the headline workload of (12): `POST /api/ai/generate` of a new
 * chat per request, 20 PRO users, 50 connections, provider at 0 ms, one worker, natural batching
 * on. This build (`BENCH_SERVICE_ENTRY` or `dist/src/main.js`) against `BENCH_BASELINE_ENTRY`
 * (another checkout's `dist/src/main.js`). Each build has its own fresh database on the bench's
 * PostgreSQL, migrated by its own first boot (two builds may not share a schema), and its own
 * users signed up through it; each run is its own service process, `rounds` pairs with the order
 * alternating. Pointing both at the same build measures the run-to-run spread.
 */
export async function buildsScenario(
  env: BenchEnv,
  cfg: BuildsConfig,
  log: (line: string) => void,
): Promise<ScenarioResult[]> {
  const baseline = process.env.BENCH_BASELINE_ENTRY;
  if (!baseline || !existsSync(baseline))
    throw new Error('scenario 16 needs BENCH_BASELINE_ENTRY: the main.js of the build to compare');
  const builds: Build[] = [];
  try {
    builds.push(await prepare(env, cfg, 'this build', SERVICE_ENTRY, 'bench_this', log));
    builds.push(await prepare(env, cfg, 'baseline build', baseline, 'bench_baseline', log));
    const run = async (b: Build): Promise<ServiceRun> => {
      log(`  ${b.label}…`);
      const { child, origin } = await env.startVariant(
        b.label,
        { ...ONE_WORKER, DATABASE_URL: b.url },
        [],
        b.entry,
      );
      try {
        const tokens = b.users.map((u) => u.token);
        return await measureRun(b.db, env.pgPid, child, origin, tokens, cfg);
      } finally {
        await stopChild(child, 20_000);
      }
    };
    await env.setReply({ generateDelayMs: 0 });
    const rows: ScenarioResult[] = [];
    for (let i = 0; i < cfg.rounds; i++) {
      const order = i % 2 === 0 ? 'this build first' : 'baseline first';
      const first = await run(builds[i % 2]);
      const second = await run(builds[1 - (i % 2)]);
      const [mine, theirs] = i % 2 === 0 ? [first, second] : [second, first];
      const ledgers = await Promise.all(builds.map((b) => checkLedger(b.db)));
      rows.push(buildsRow(cfg, mine, theirs, order, baseline, ledgers));
    }
    return rows;
  } finally {
    await Promise.all(builds.map((b) => b.db.end().catch(() => undefined)));
  }
}

/** A fresh database for `entry`, migrated by its first boot, with `cfg.users` PRO users. */
async function prepare(
  env: BenchEnv,
  cfg: BuildsConfig,
  label: string,
  entry: string,
  database: string,
  log: (line: string) => void,
): Promise<Build> {
  log(`  ${label}: database ${database}, ${entry}`);
  const url = await env.freshDatabase(database);
  const { child, origin } = await env.startVariant(
    `${label} setup`,
    { ...ONE_WORKER, DATABASE_URL: url },
    [],
    entry,
  );
  const users: BenchUser[] = [];
  try {
    for (let i = 1; i <= cfg.users; i++)
      users.push(await signup(origin, `bench-build-${i}@example.com`));
  } finally {
    await stopChild(child, 20_000);
  }
  const db = await connect(url);
  await raiseBalance(
    db,
    users.map((u) => u.id),
    10_000_000,
  );
  return { label, entry, url, db, users };
}

function buildsRow(
  cfg: BuildsConfig,
  mine: ServiceRun,
  theirs: ServiceRun,
  order: string,
  baseline: string,
  ledgers: { violations: number; openHolds: number }[],
): ScenarioResult {
  const costs = (label: string, r: ServiceRun) => [
    check(`service CPU per request (process tree), ${label}`, serviceCpu(r), 'ms'),
    check(`PostgreSQL CPU per request, ${label}`, r.load.pgCpuMsPerRequest ?? NaN, 'ms'),
    check(`statements per request, ${label}`, r.statementsPerRequest, ''),
    check(`commits per request, ${label}`, r.commitsPerRequest, ''),
  ];
  return {
    id: 16,
    name:
      `metered generate, new chat each, this build against ${baseline}, ${order} ` +
      `(${cfg.connections} conn., one worker, delay 0)`,
    measured: runSide('this build', mine),
    baseline: runSide('baseline build', theirs),
    ratio: ratioOf(mine.load.rps, theirs.load.rps),
    ratioOf: 'req/s',
    checks: [
      ...costs(`this build (${order})`, mine),
      ...costs(`baseline (${order})`, theirs),
      check(
        `service CPU per request, this ÷ baseline (${order})`,
        ratioOf(serviceCpu(mine), serviceCpu(theirs)),
        '',
      ),
      check(
        `service + PostgreSQL CPU per request, this ÷ baseline (${order})`,
        ratioOf(totalCpu(mine), totalCpu(theirs)),
        '',
      ),
      check(
        'users breaking credits + holds = Σ ledger, both databases',
        ledgers.reduce((n, l) => n + l.violations, 0),
        '',
        exact,
      ),
      check(
        'errors (non-2xx, socket, timeouts), both runs',
        errorsOf(mine) + errorsOf(theirs),
        '',
        exact,
      ),
    ],
  };
}
