import { existsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { checkLedger, waitForSettled } from './lib/db';
import { stopAllChildren } from './lib/processes';
import { machine, markdown } from './lib/report';
import {
  bareBaseline,
  chatsScenario,
  generateScenario,
  healthScenario,
} from './lib/scenarios-http';
import type { LoadResult } from './lib/load';
import { openStreamsScenario, streamScenario } from './lib/scenarios-streams';
import { uploadScenario } from './lib/scenario-upload';
import { gatewayScenario } from './lib/scenario-gateway';
import { longChatsScenario } from './lib/scenario-long-chats';
import { searchScenario } from './lib/scenario-search';
import { imagesScenario } from './lib/scenario-images';
import { wireStreamsScenario } from './lib/scenario-wire-streams';
import { meteringScenario } from './lib/scenario-metering';
import { failoverScenario } from './lib/scenario-failover';
import { ceilingsScenario } from './lib/scenario-ceilings';
import { spendScenario } from './lib/scenario-spend';
import { buildsScenario } from './lib/scenario-builds';
import { type BenchEnv, PROFILE_DIR, ROOT, SERVICE_ENTRY, setup } from './lib/setup';
import { round } from './lib/stats';
import { check, type ScenarioResult } from './lib/types';

const max0 = { kind: 'max' as const, value: 0 };

/**
 * `npm run bench`: builds nothing itself (the npm script runs `nest build` first), starts
 * everything it measures, runs the scenarios of bench/README.md on loopback, prints a
 * markdown table and writes bench/results.json. Knobs: see bench/README.md.
 */
const num = (name: string, fallback: number): number => {
  const v = process.env[name];
  return v === undefined || v === '' ? fallback : Number(v);
};

const http = {
  durationS: num('BENCH_DURATION_S', 10),
  warmupS: num('BENCH_WARMUP_S', 2),
  connections: num('BENCH_CONNECTIONS', 50),
  generateConnections: 50,
  generateDelayMs: num('BENCH_GENERATE_DELAY_MS', 200),
};
const streams = {
  sequential: num('BENCH_STREAM_SEQUENTIAL', 200),
  concurrent: num('BENCH_STREAM_CONCURRENT', 400),
  concurrency: num('BENCH_STREAM_CONCURRENCY', 20),
  chunks: 5,
  chunkDelayMs: num('BENCH_CHUNK_DELAY_MS', 20),
  openStreams: num('BENCH_OPEN_STREAMS', 500),
  openChunkDelayMs: 500,
  uploadBytes: num('BENCH_UPLOAD_MB', 200) * 1024 * 1024,
};
const wireStreams = {
  perWire: num('BENCH_WIRE_STREAMS', 400),
  rounds: 4,
  concurrency: num('BENCH_STREAM_CONCURRENCY', 20),
  chunks: 10,
  chunkDelayMs: num('BENCH_CHUNK_DELAY_MS', 20),
};
const metering = {
  durationS: num('BENCH_METERING_S', 8),
  warmupS: num('BENCH_WARMUP_S', 2),
  connections: 50,
  users: 20,
  delayMs: num('BENCH_GENERATE_DELAY_MS', 200),
  dayRows: num('BENCH_DAY_ROWS', 10_000),
};
const failover = {
  durationS: num('BENCH_FAILOVER_S', 30),
  warmupS: num('BENCH_WARMUP_S', 2),
  connections: 50,
  delayMs: num('BENCH_GENERATE_DELAY_MS', 200),
  failRate: 0.3,
};
const ceilings = {
  durationS: num('BENCH_CEILINGS_S', 8),
  warmupS: num('BENCH_WARMUP_S', 2),
  connections: 50,
  users: 20,
  rpm: 1_000_000,
  tpm: 1_000_000_000,
  rounds: num('BENCH_CEILINGS_ROUNDS', 2),
};
const spend = {
  durationS: num('BENCH_SPEND_S', 8),
  warmupS: num('BENCH_WARMUP_S', 2),
  connections: 50,
  users: 20,
  pool: 5_000_000,
  limit: 1_000_000_000,
  rounds: num('BENCH_SPEND_ROUNDS', 2),
};
const builds = {
  durationS: num('BENCH_BUILDS_S', 8),
  warmupS: num('BENCH_WARMUP_S', 2),
  connections: 50,
  users: 20,
  rounds: num('BENCH_BUILDS_ROUNDS', 2),
};
// 16 compares two builds: it runs when named, with BENCH_BASELINE_ENTRY.
const only = new Set(
  (process.env.BENCH_SCENARIOS ?? '1,2,3,4,5,6,7,8,9,10,11,12,13,14,15')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter(Boolean),
);
const cpuProf = process.env.BENCH_CPU_PROF === '1';
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

let env: BenchEnv | undefined;
let closing: Promise<void> | undefined;
const shutdown = () => (closing ??= (env ? env.close() : stopAllChildren()).catch(() => undefined));

async function main(): Promise<void> {
  const entry = SERVICE_ENTRY;
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const started = Date.now();
  const loadBefore = loadavg()[0];
  env = await setup({
    aiUsers: num('BENCH_AI_USERS', 10),
    credits: 10_000_000,
    chats: 50,
    messagesPerChat: 20,
    uploadMaxBytes: streams.uploadBytes + 64 * 1024 * 1024,
    cpuProf,
    log,
  });
  const e = env;
  const results: ScenarioResult[] = [];
  // A scenario gives one row, or several measured side by side in the same run (11).
  const run = async (id: number, fn: () => Promise<ScenarioResult | ScenarioResult[]>) => {
    if (!only.has(id)) return;
    log(`scenario ${id}…`);
    const from = Date.now() - e.service.spawnedAt;
    const rows = [await fn()].flat();
    const window: [number, number] = [from, Date.now() - e.service.spawnedAt];
    if (e.service.proc.exitCode !== null) throw new Error(`the service exited during ${id}`);
    // The books after every scenario, once the requests still in flight have ended.
    const settled = await waitForSettled(e.db);
    const books = await checkLedger(e.db);
    const result = rows[0];
    result.checks.push(
      check('holds open once in-flight requests ended', books.openHolds, '', max0),
      check('users breaking credits + holds = Σ ledger', books.violations, '', max0),
    );
    (result.notes ??= []).push(`in-flight requests ended ${settled.waitedMs} ms after the load`);
    for (const row of rows) row.window = window;
    results.push(...rows);
    log(`scenario ${id} done in ${((window[1] - from) / 1000).toFixed(1)} s`);
  };

  let bare: LoadResult | undefined;
  await run(1, async () => {
    const h = await healthScenario(e, http);
    bare = h.bare;
    return h.result;
  });
  if (!bare && only.has(2)) bare = await bareBaseline(e, http);
  await run(2, () => chatsScenario(e, http, bare!));
  await run(3, () => generateScenario(e, http));
  await run(4, () => streamScenario(e, streams));
  await run(5, () => openStreamsScenario(e, streams));
  await run(6, () => uploadScenario(e, streams));
  await run(7, () => gatewayScenario(e, http));
  await run(8, () => longChatsScenario(e, http));
  await run(9, () => searchScenario(e));
  await run(10, () => imagesScenario(e));
  await run(11, () => wireStreamsScenario(e, wireStreams));
  await run(12, () => meteringScenario(e, metering, log));
  await run(13, () => failoverScenario(e, failover));
  await run(14, () => ceilingsScenario(e, ceilings, log));
  await run(15, () => spendScenario(e, spend, log));
  await run(16, () => buildsScenario(e, builds, log));

  const ledger = await checkLedger(e.db);
  const meta = {
    ...machine(),
    totalSeconds: Math.round((Date.now() - started) / 1000),
    loadAverage1mBefore: round(loadBefore),
    loadAverage1mAfter: round(loadavg()[0]),
    servicePoolSize: process.env.DB_POOL_SIZE ?? '10 (default)',
    ...(only.has(16) ? { baselineEntry: process.env.BENCH_BASELINE_ENTRY } : {}),
  };
  const table = markdown(results, meta);
  await shutdown();
  const cpuProfile = e.cpuProfile ? resolve(PROFILE_DIR, e.cpuProfile) : undefined;
  writeFileSync(
    resolve(ROOT, 'bench/results.json'),
    JSON.stringify(
      {
        meta,
        config: { http, streams, wireStreams, metering, failover, ceilings, spend, builds },
        ledger,
        cpuProfile,
        results,
      },
      null,
      2,
    ) + '\n',
  );
  process.stdout.write(table + '\n\n');
  process.stdout.write(
    `Ledger after the run: ${ledger.violations} users break credits + holds = Σ ledger; ` +
      `${ledger.openHolds} holds open.\n`,
  );
  if (cpuProfile) process.stdout.write(`CPU profile: ${cpuProfile}\n`);
  log(`finished in ${meta.totalSeconds} s; results in bench/results.json`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping everything`);
    void shutdown().then(() => process.exit(130));
  });
}

main().catch(async (err: unknown) => {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await shutdown();
  process.exit(1);
});
