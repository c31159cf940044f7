import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Clock } from '../common/clock/clock';
import type { AppConfig } from '../config/app.config';
import { type CooldownRules, effectiveState } from './upstream-health';
import { MinuteCounter } from './minute-counter';
import { UpstreamMetrics } from './upstream-metrics';
import { orderUpstreams, type RoutableUpstream, serves } from './upstream-order';
import type {
  RoutedModel,
  UpstreamOutcome,
  UpstreamRouting,
  UpstreamTarget,
} from './upstream-router.types';
import { UpstreamStateStore } from './upstream-state.store';
import { UpstreamTable } from './upstream-table';

/** Injection token of the random source of the weighted order (tests give a seeded one). */
export const UPSTREAM_RANDOM = Symbol('UPSTREAM_RANDOM');

/**
 * The router (UpstreamRouting): which upstreams may serve a model and in which order, and the
 * health each attempt's end leaves behind. Rows come from UpstreamTable's copy and health from
 * UpstreamStateStore's (both in memory), so a request costs no query of its own.
 */
@Injectable()
export class UpstreamRouter implements UpstreamRouting {
  private readonly logger = new Logger('Upstreams');
  private readonly rules: CooldownRules;
  private readonly random: () => number;
  private readonly perMinute = new MinuteCounter();

  constructor(
    private readonly table: UpstreamTable,
    private readonly states: UpstreamStateStore,
    private readonly metrics: UpstreamMetrics,
    private readonly clock: Clock,
    config: ConfigService<AppConfig, true>,
    @Optional() @Inject(UPSTREAM_RANDOM) random?: () => number,
  ) {
    this.rules = config.get('upstreams', { infer: true });
    this.random = random ?? Math.random;
    // The gauge reads the copies in memory: a scrape costs at most the periodic reads.
    this.metrics.readStatesFrom(async () => {
      const [all, health] = await Promise.all([this.table.all(), this.states.snapshot()]);
      const now = this.clock.now();
      return all.map((u) => ({ name: u.name, state: effectiveState(health.get(u.id), now) }));
    });
  }

  /**
   * See UpstreamRouting.candidates. An upstream whose `rpm` this process has reached in the
   * current clock minute (attempts reported) is left out until the next minute.
   */
  async candidates(model: RoutedModel): Promise<UpstreamTarget[]> {
    const [all, health] = await Promise.all([this.table.all(), this.states.snapshot()]);
    const now = this.clock.now();
    // An upstream at its requests-per-minute ceiling (counted by this process) is left out.
    const open = (u: RoutableUpstream) => u.rpm === null || this.perMinute.count(u.id, now) < u.rpm;
    const ordered = orderUpstreams(
      all.filter((u) => serves(u, model) && open(u)),
      (id) => health.get(id),
      now,
      this.random,
    );
    return ordered.map((u) => ({
      id: u.id,
      name: u.name,
      provider: u.provider,
      baseUrl: u.baseUrl,
      apiKey: u.apiKey,
      upstreamModel: u.modelMap[model.id] ?? model.id,
      version: u.version,
    }));
  }

  /** See UpstreamRouting.refresh. */
  async refresh(): Promise<void> {
    await this.table.all();
  }

  /**
   * See UpstreamRouting.report. Never throws: a failure to record the health is logged, and the
   * request it came from goes on.
   */
  async report(target: UpstreamTarget, outcome: UpstreamOutcome): Promise<void> {
    this.metrics.attempt(target.name, outcome);
    this.perMinute.hit(target.id, this.clock.now());
    try {
      const made = await this.states.apply(target.id, outcome, this.rules);
      if (made?.cooledDown) this.metrics.cooledDown(target.name);
      if (made && made.next.state !== 'healthy' && outcome.kind !== 'ok')
        this.logger.warn(
          `Upstream ${target.name}: ${made.next.state} after ${outcome.kind}${outcome.status ? ` ${outcome.status}` : ''}`,
        );
    } catch (e) {
      this.logger.error(
        `Recording the health of upstream ${target.name} failed: ${(e as Error).message}`,
      );
    }
  }
}
