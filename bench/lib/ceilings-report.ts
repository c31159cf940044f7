import type { LoadResult } from './load';
import { side } from './scenarios-http';
import { round } from './stats';
import { check, type ScenarioResult } from './types';

export interface CeilingsConfig {
  durationS: number;
  warmupS: number;
  connections: number;
  /** PRO users, one per connection in turn (20). */
  users: number;
  /** Ceilings of the limited runs: high enough never to refuse. */
  rpm: number;
  tpm: number;
  /** Pairs of runs; the first is without ceilings then with, the next the other way round. */
  rounds: number;
}

/** One measured run of a service process: load, database work, and what was counted. */
export interface Phase {
  load: LoadResult;
  statementsPerRequest: number;
  commitsPerRequest: number;
  /** Top-level calls per 2xx answer of each statement (by text, first 90 characters). */
  perStatement: Map<string, number>;
  /** Chat completion calls the bench provider received during the run. */
  providerCalls: number;
  /** What `upstream_usage` gained for the upstream during the run (Σ over its rows). */
  counted: { requests: number; tokens: number; rows: number };
  /** CONSUMPTION entries of the run and their prompt + completion tokens. */
  charged: { requests: number; tokens: number };
}

const errorsOf = (p: Phase) => p.load.non2xx + p.load.errors + p.load.timeouts;
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? NaN : round(a / b, 3);
const usageStatements = (p: Phase) =>
  round(
    [...p.perStatement].reduce(
      (n, [q, calls]) => (q.includes('INSERT INTO upstream_usage') ? n + calls : n),
      0,
    ),
    3,
  );

/** The statements whose calls per request differ most between the two runs. */
function statementDiff(on: Phase, off: Phase, top: number): string {
  const keys = new Set([...on.perStatement.keys(), ...off.perStatement.keys()]);
  return [...keys]
    .map((q) => [q, (on.perStatement.get(q) ?? 0) - (off.perStatement.get(q) ?? 0)] as const)
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
    .slice(0, top)
    .map(([q, d]) => `${d > 0 ? '+' : ''}${round(d, 3)} ${q}`)
    .join(' | ');
}

/** One row of (14): a run with ceilings against one without, `order` saying which ran first. */
export function ceilingsRow(
  cfg: CeilingsConfig,
  on: Phase,
  off: Phase,
  order: string,
): ScenarioResult {
  const costs = (label: string, p: Phase) => [
    check(`service CPU per request (process tree), ${label}`, p.load.cpuMsPerRequest ?? NaN, 'ms'),
    check(`PostgreSQL CPU per request, ${label}`, p.load.pgCpuMsPerRequest ?? NaN, 'ms'),
    check(`statements per request, ${label}`, p.statementsPerRequest, ''),
    check(`commits per request, ${label}`, p.commitsPerRequest, ''),
    check(`upstream_usage statements per request, ${label}`, usageStatements(p), ''),
  ];
  const exact = { kind: 'max' as const, value: 0 };
  const both = (name: string, a: number | undefined, b: number | undefined) =>
    check(`${name}, with ÷ without (${order})`, ratio(a, b), '');
  return {
    id: 14,
    name:
      `metered generate through an upstream row with rpm ${cfg.rpm} and tpm ${cfg.tpm} ` +
      `(never reached) against the same row without, ${order} ` +
      `(${cfg.connections} conn., one worker, delay 0)`,
    measured: side('upstream with ceilings', on.load),
    baseline: side('upstream without ceilings', off.load),
    ratio: ratio(on.load.rps, off.load.rps),
    ratioOf: 'req/s',
    checks: [
      ...costs(`with ceilings (${order})`, on),
      ...costs(`without (${order})`, off),
      both('service CPU per request', on.load.cpuMsPerRequest, off.load.cpuMsPerRequest),
      both('PostgreSQL CPU per request', on.load.pgCpuMsPerRequest, off.load.pgCpuMsPerRequest),
      both('statements per request', on.statementsPerRequest, off.statementsPerRequest),
      both('commits per request', on.commitsPerRequest, off.commitsPerRequest),
      check(
        'upstream_usage Σ requests minus provider calls, with ceilings',
        on.counted.requests - on.providerCalls,
        '',
        { kind: 'max', value: 0 },
      ),
      check(
        'provider calls minus upstream_usage Σ requests, with ceilings',
        on.providerCalls - on.counted.requests,
        '',
        exact,
      ),
      check('upstream_usage Σ requests, without ceilings', off.counted.requests, '', exact),
      check(
        'errors (non-2xx, socket, timeouts), both runs',
        errorsOf(on) + errorsOf(off),
        '',
        exact,
      ),
    ],
    notes: [
      `${order}, with ceilings: upstream_usage counted ${on.counted.requests} requests and ` +
        `${on.counted.tokens} tokens (${on.counted.rows} minute rows in all); the provider ` +
        `received ${on.providerCalls} calls; the ledger charged ${on.charged.requests} requests ` +
        `of ${on.charged.tokens} tokens; the client got ${on.load.answered} answers`,
      `${order}, without ceilings: the provider received ${off.providerCalls} calls, the ledger ` +
        `charged ${off.charged.requests}; upstream_usage counted ${off.counted.requests}`,
      `${order}, statements per request with − without: ${statementDiff(on, off, 6)}`,
    ],
  };
}
