import type { Client } from 'pg';
import { dbCounters, statementCalls, waitForSettled } from './db';
import { load, type LoadResult } from './load';
import type { Child } from './processes';
import { side } from './scenarios-http';
import { round } from './stats';
import type { Side } from './types';

/** The metered request of (12): a new chat each, `gpt-4o-mini`, 100 tokens at most. */
export const METERED_BODY = JSON.stringify({
  modelId: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Say hello in five words.' }],
  maxTokens: 100,
});

export interface RunConfig {
  durationS: number;
  warmupS: number;
  connections: number;
}

/** One measured run of a service process: load, CPU, and its database's statements. */
export interface ServiceRun {
  load: LoadResult;
  /**
   * Requests the service metered during the run (its CONSUMPTION entries): the 2xx answers,
   * warm-up included, and the requests in flight when the load stopped (autocannon closes its
   * sockets mid-request; they settle all the same, through the same statements).
   */
  metered: number;
  /** Top-level statements (pg_stat_statements) per metered request. */
  statementsPerRequest: number;
  /** Commits (pg_stat_database.xact_commit) per metered request. */
  commitsPerRequest: number;
  /** Top-level calls per metered request of each statement (by its first 90 characters). */
  perStatement: Map<string, number>;
}

const quiet = () => new Promise((r) => setTimeout(r, 1500));

/**
 * Runs the metered load of (12) on `origin` with `tokens` (sessions or API keys, one per
 * connection in turn) and counts what it cost: CPU of `child`'s tree and of PostgreSQL
 * (`pgPid`), statements and commits of the database `db` is connected to. The counters are read
 * after 1.5 s of quiet on both sides (pg_stat_database is flushed at most once a second), and
 * after the requests still in flight have settled. The bench's own reads in between (a few
 * polls of the open holds) are counted too: a handful against thousands of requests.
 */
export async function measureRun(
  db: Client,
  pgPid: number,
  child: Child,
  origin: string,
  tokens: string[],
  cfg: RunConfig,
): Promise<ServiceRun> {
  await quiet();
  const before = await dbCounters(db);
  const meteredBefore = await consumptionEntries(db);
  const callsBefore = await statementCalls(db);
  const result = await load({
    url: `${origin}/api/ai/generate`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    tokens,
    body: METERED_BODY,
    connections: cfg.connections,
    durationS: cfg.durationS,
    warmupS: cfg.warmupS,
    cpuPid: child.pid,
    pgPid,
  });
  await waitForSettled(db);
  await quiet();
  const after = await dbCounters(db);
  const metered = (await consumptionEntries(db)) - meteredBefore;
  const calls = await statementCalls(db);
  const per = (n: number, digits = 2) => round(n / (metered || 1), digits);
  for (const [q, n] of callsBefore) calls.set(q, (calls.get(q) ?? 0) - n);
  return {
    load: result,
    metered,
    statementsPerRequest: per(after.statements - before.statements),
    commitsPerRequest: per(after.commits - before.commits),
    perStatement: new Map([...calls].filter(([, n]) => n > 0).map(([q, n]) => [q, per(n, 4)])),
  };
}

/** CONSUMPTION entries of the database so far (one per metered request). */
async function consumptionEntries(db: Client): Promise<number> {
  const { rows } = await db.query(
    `SELECT count(*)::float8 AS n FROM credit_transactions WHERE type = 'CONSUMPTION'`,
  );
  return rows[0].n;
}

/**
 * The statements of the request path of two runs: those at least one in four requests sends
 * (`REQUEST_PATH` calls per request or more, on either side), and their calls per request on
 * each side. Without natural batching every request sends its own, so each is 1 per request,
 * and a statement added to every request would add 1; what the requests send less often (the
 * key's `lastUsedAt`, once a minute per key), the job queue's statements (pg-boss polls at a
 * fixed rate, which a slow run makes frequent per request) and the bench's own reads stay out,
 * and `statementDiff` names them.
 */
export function requestPath(a: ServiceRun, b: ServiceRun): { a: number; b: number; n: number } {
  const keys = new Set(
    [...a.perStatement, ...b.perStatement]
      .filter(([q, n]) => n >= REQUEST_PATH && !JOB_QUEUE.test(q))
      .map(([q]) => q),
  );
  const sum = (r: ServiceRun) => [...keys].reduce((n, q) => n + (r.perStatement.get(q) ?? 0), 0);
  return { a: round(sum(a), 3), b: round(sum(b), 3), n: keys.size };
}

const REQUEST_PATH = 0.25;
/** pg-boss's own statements (its polls of every instance run at a fixed rate, not per request). */
const JOB_QUEUE = /pgboss/;

/** The statements whose calls per request differ most between two runs (`a` − `b`). */
export function statementDiff(a: ServiceRun, b: ServiceRun, top: number): string {
  const keys = new Set([...a.perStatement.keys(), ...b.perStatement.keys()]);
  const diffs = [...keys]
    .map((q) => [q, (a.perStatement.get(q) ?? 0) - (b.perStatement.get(q) ?? 0)] as const)
    .filter(([, d]) => Math.abs(d) >= 0.001)
    .sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]))
    .slice(0, top);
  return diffs.length
    ? diffs.map(([q, d]) => `${d > 0 ? '+' : ''}${round(d, 3)} ${q}`).join(' | ')
    : 'none differ by 0.001 or more';
}

/** A side of a row, with each statement's calls per request kept in results.json. */
export const runSide = (label: string, r: ServiceRun): Side => ({
  ...side(label, r.load),
  detail: {
    ...r.load,
    metered: r.metered,
    statementsPerRequest: r.statementsPerRequest,
    commitsPerRequest: r.commitsPerRequest,
    perStatement: Object.fromEntries([...r.perStatement].sort((a, b) => b[1] - a[1])),
  },
});

/** CPU of the service's tree per request, and with PostgreSQL's. */
export const serviceCpu = (r: ServiceRun) => r.load.cpuMsPerRequest ?? NaN;
export const totalCpu = (r: ServiceRun) =>
  (r.load.cpuMsPerRequest ?? NaN) + (r.load.pgCpuMsPerRequest ?? NaN);
export const errorsOf = (r: ServiceRun) => r.load.non2xx + r.load.errors + r.load.timeouts;
export const ratioOf = (a: number, b: number) => (b ? round(a / b, 3) : NaN);
