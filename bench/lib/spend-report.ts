import {
  errorsOf,
  ratioOf,
  requestPath,
  runSide,
  serviceCpu,
  statementDiff,
  totalCpu,
  type RunConfig,
  type ServiceRun,
} from './service-run';
import { round } from './stats';
import { check, type ScenarioResult } from './types';

export interface SpendConfig extends RunConfig {
  /** PRO users, one per connection in turn (20); each owns one team. */
  users: number;
  /** Credits each user moves into their team's pool (far above what the runs spend). */
  pool: number;
  /** Limit of every budget window (credits; far above what the runs spend). */
  limit: number;
  /** Pairs of runs with natural batching on; the order alternates. */
  rounds: number;
}

/** One run with or without spend controls, and what the controls counted during it. */
export interface SpendRun extends ServiceRun {
  /** CONSUMPTION entries the bench teams' pools gained. */
  poolEntries: number;
  /** Σ `used` the bench budgets' counters gained (credits). */
  budgetUsed: number;
}

const exact = { kind: 'max' as const, value: 0 };

/**
 * One row of (15): a run through team keys with a pool, a member cap and a key budget that
 * never bind, against one through personal keys with none. With natural batching on, statements
 * per request depend on how many requests each batch carries, so their difference is reported;
 * with it off each request sends its own, and the difference must be 0.
 */
export function spendRow(
  cfg: SpendConfig,
  on: SpendRun,
  off: SpendRun,
  order: string,
  books: { poolViolations: number; counterMismatches: number; counters: number },
  batched: boolean,
): ScenarioResult {
  const costs = (label: string, r: SpendRun) => [
    check(`service CPU per request (process tree), ${label}`, serviceCpu(r), 'ms'),
    check(`PostgreSQL CPU per request, ${label}`, r.load.pgCpuMsPerRequest ?? NaN, 'ms'),
    check(`statements per request, ${label}`, r.statementsPerRequest, ''),
    check(`commits per request, ${label}`, r.commitsPerRequest, ''),
  ];
  const path = requestPath(on, off);
  return {
    id: 15,
    name:
      `metered generate through team keys with a pool, a member cap and a key budget that never ` +
      `bind, against personal keys with none, ${order} (${cfg.connections} conn., one worker, delay 0)`,
    measured: runSide('team keys, pool + member cap + key budget', on),
    baseline: runSide('personal keys, no controls', off),
    ratio: ratioOf(on.load.rps, off.load.rps),
    ratioOf: 'req/s',
    checks: [
      ...costs(`with (${order})`, on),
      ...costs(`without (${order})`, off),
      check(
        `service CPU per request, with ÷ without (${order})`,
        ratioOf(serviceCpu(on), serviceCpu(off)),
        '',
        { kind: 'max', value: 1.1 },
      ),
      check(
        `service + PostgreSQL CPU per request, with ÷ without (${order})`,
        ratioOf(totalCpu(on), totalCpu(off)),
        '',
      ),
      check(
        `statements per request, with − without (${order})`,
        round(on.statementsPerRequest - off.statementsPerRequest, 2),
        '',
      ),
      check(`request-path statements per request, with (${order})`, path.a, ''),
      check(`request-path statements per request, without (${order})`, path.b, ''),
      check(
        `request-path statements per request, with − without (${order})`,
        round(path.a - path.b, 3),
        '',
        batched ? undefined : { kind: 'max', value: 0.05 },
      ),
      check(
        `metered calls a pool did not pay, with (${order})`,
        on.metered - on.poolEntries,
        '',
        exact,
      ),
      check(`metered calls a pool paid, without (${order})`, off.poolEntries, '', exact),
      check('pools breaking credits + holds = Σ ledger', books.poolViolations, '', exact),
      check('budget counters ≠ the ledger of their window', books.counterMismatches, '', exact),
      check(
        'errors (non-2xx, socket, timeouts), both runs',
        errorsOf(on) + errorsOf(off),
        '',
        exact,
      ),
    ],
    notes: [
      `${order}, with controls: the pools paid ${on.poolEntries} calls of ${on.metered} metered ` +
        `(${on.load.answered} answers); the budgets' counters gained ${on.budgetUsed} credits (${books.counters} ` +
        `counter rows, limits ${cfg.limit} per window, pools funded with ${cfg.pool} each)`,
      `${order}, request path: the ${path.n} statements at least one in four requests sends`,
      `${order}, statements per request with − without: ${statementDiff(on, off, 6)}`,
    ],
  };
}
