import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service';
import { UPSTREAM_STATES, type UpstreamStateName } from './upstream-health';
import type { UpstreamOutcome } from './upstream-router.types';

const BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];

/** The error class of a failed attempt: bounded label values from its status. */
export function errorClass(status: number | undefined): string {
  if (status === undefined) return 'connection';
  if (status === 429) return 'rate_limit';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status >= 500) return 'server';
  return 'client';
}

/**
 * The upstream metrics, in the service's registry. Every label `upstream` is the upstream's
 * name (never its URL or key): `upstream_requests_total{upstream,outcome}`,
 * `upstream_errors_total{upstream,class}`, `upstream_request_duration_seconds{upstream}`,
 * `upstream_cooldowns_total{upstream}`, `upstream_ceiling_skips_total{upstream}`, and the gauge `upstream_state{upstream,state}` (1 for
 * the state it is in, 0 for the others) read at scrape time from `states()`.
 */
@Injectable()
export class UpstreamMetrics {
  private readonly requests: Counter<'upstream' | 'outcome'>;
  private readonly errors: Counter<'upstream' | 'class'>;
  private readonly duration: Histogram<'upstream'>;
  private readonly cooldowns: Counter<'upstream'>;
  private readonly ceilingSkips: Counter<'upstream'>;
  private states: () => Promise<{ name: string; state: UpstreamStateName }[]> = async () => [];

  constructor(metrics: MetricsService) {
    const registers = [metrics.registry];
    this.requests = new Counter({
      name: 'upstream_requests_total',
      help: 'Attempts on an upstream, by upstream name and outcome (ok, retryable, misconfigured)',
      labelNames: ['upstream', 'outcome'] as const,
      registers,
    });
    this.errors = new Counter({
      name: 'upstream_errors_total',
      help: 'Failed attempts on an upstream, by upstream name and error class',
      labelNames: ['upstream', 'class'] as const,
      registers,
    });
    this.duration = new Histogram({
      name: 'upstream_request_duration_seconds',
      help: 'Attempts on an upstream, from the call to its end (first chunk or error), seconds',
      labelNames: ['upstream'] as const,
      buckets: BUCKETS,
      registers,
    });
    this.cooldowns = new Counter({
      name: 'upstream_cooldowns_total',
      help: 'Cooldowns started (repeated failures or Retry-After), by upstream name',
      labelNames: ['upstream'] as const,
      registers,
    });
    this.ceilingSkips = new Counter({
      name: 'upstream_ceiling_skips_total',
      help: 'Attempts not made on an upstream because it reached its rpm or tpm in the minute',
      labelNames: ['upstream'] as const,
      registers,
    });
    metrics.gauge(
      'upstream_state',
      'Each upstream’s state: 1 for the one it is in',
      ['upstream', 'state'],
      async (g) => {
        g.reset();
        for (const { name, state } of await this.states())
          for (const s of UPSTREAM_STATES) g.set({ upstream: name, state: s }, s === state ? 1 : 0);
      },
    );
  }

  /** Where the state gauge reads each upstream's state (the router, once built). */
  readStatesFrom(states: () => Promise<{ name: string; state: UpstreamStateName }[]>): void {
    this.states = states;
  }

  /** One attempt's end on upstream `name`. */
  attempt(name: string, outcome: UpstreamOutcome): void {
    this.requests.inc({ upstream: name, outcome: outcome.kind });
    this.duration.observe({ upstream: name }, outcome.latencyMs / 1000);
    if (outcome.kind !== 'ok')
      this.errors.inc({ upstream: name, class: errorClass(outcome.status) });
  }

  /** A cooldown of upstream `name` started. */
  cooledDown(name: string): void {
    this.cooldowns.inc({ upstream: name });
  }

  /** An attempt on upstream `name` was not made: it is at its `rpm` or `tpm` ceiling. */
  ceilingReached(name: string): void {
    this.ceilingSkips.inc({ upstream: name });
  }
}
