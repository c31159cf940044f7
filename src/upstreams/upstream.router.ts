import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { upstreamsConfig } from './upstreams.config';
import { Clock } from '../common/clock/clock';
import { type CooldownRules, effectiveState } from './upstream-health';
import { UpstreamMetrics } from './upstream-metrics';
import { orderUpstreams, type RoutableUpstream, serves } from './upstream-order';
import type {
  RoutedModel,
  UpstreamAdmission,
  UpstreamOutcome,
  UpstreamRouting,
  UpstreamTarget,
} from './upstream-router.types';
import { UpstreamStateStore } from './upstream-state.store';
import { UpstreamTable } from './upstream-table';
import { UpstreamUsageMeter } from './upstream-usage';

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
  /** The ceilings of the upstreams last listed by `candidates`, for `admit` and `used`. */
  private readonly ceilings = new Map<string, Pick<RoutableUpstream, 'rpm' | 'tpm'>>();

  constructor(
    private readonly table: UpstreamTable,
    private readonly states: UpstreamStateStore,
    private readonly metrics: UpstreamMetrics,
    private readonly usage: UpstreamUsageMeter,
    private readonly clock: Clock,
    @Inject(upstreamsConfig.KEY) upstreams: ConfigType<typeof upstreamsConfig>,
    @Optional() @Inject(UPSTREAM_RANDOM) random?: () => number,
  ) {
    this.rules = upstreams;
    this.random = random ?? Math.random;
    // The gauge reads the copies in memory: a scrape costs at most the periodic reads.
    this.metrics.readStatesFrom(async () => {
      const [all, health] = await Promise.all([this.table.all(), this.states.snapshot()]);
      const now = this.clock.now();
      return all.map((u) => ({ name: u.name, state: effectiveState(health.get(u.id), now) }));
    });
  }

  /**
   * See UpstreamRouting.candidates. When an upstream serving the model has a ceiling, every
   * instance's usage is synchronised first if this process's copy is older than USAGE_SYNC_MS.
   */
  async candidates(model: RoutedModel): Promise<UpstreamTarget[]> {
    const [all, health] = await Promise.all([this.table.all(), this.states.snapshot()]);
    const serving = all.filter((u) => serves(u, model));
    let limited = false;
    for (const u of serving) {
      if (u.rpm === null && u.tpm === null) {
        this.ceilings.delete(u.id);
      } else {
        this.ceilings.set(u.id, { rpm: u.rpm, tpm: u.tpm });
        limited = true;
      }
    }
    if (limited) await this.usage.sync();
    const ordered = orderUpstreams(serving, (id) => health.get(id), this.clock.now(), this.random);
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

  /** See UpstreamRouting.admit. */
  admit(target: UpstreamTarget): UpstreamAdmission {
    const ceiling = this.ceilings.get(target.id);
    if (!ceiling) return { admitted: true };
    const now = this.clock.now();
    const { requests, tokens } = this.usage.current(target.id, now);
    if (
      (ceiling.rpm !== null && requests >= ceiling.rpm) ||
      (ceiling.tpm !== null && tokens >= ceiling.tpm)
    ) {
      this.metrics.ceilingReached(target.name);
      return {
        admitted: false,
        resetsAt: new Date(now.getTime() - (now.getTime() % 60_000) + 60_000),
      };
    }
    this.usage.add(target.id, { requests: 1 }, now);
    this.usage.flush();
    return { admitted: true };
  }

  /** See UpstreamRouting.used. */
  used(target: UpstreamTarget, tokens: number): void {
    if (tokens <= 0 || this.ceilings.get(target.id)?.tpm == null) return;
    this.usage.add(target.id, { tokens });
    this.usage.flush();
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
