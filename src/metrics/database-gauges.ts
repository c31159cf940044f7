import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import {
  HOLDS_OPEN_SQL,
  JOB_QUEUES_SQL,
  JOB_TABLE,
  LEDGER_VIOLATIONS_SQL,
  TABLE_PRESENT_SQL,
} from './database-gauges.sql';
import { MetricsService } from './metrics.service';

/** The ledger check scans every ledger row: at most once a minute, whatever the scrape rate. */
const LEDGER_CHECK_EVERY_MS = 60_000;

interface Snapshot {
  holdsOpen: number;
  ledgerViolations: number;
  /** Per queue; undefined when the queue schema is absent (JOBS_ENABLED=false, fresh database). */
  queues?: { queue: string; depth: number; failed: number }[];
}

/**
 * Gauges read from PostgreSQL and the pool when Prometheus scrapes, so there are
 * no timers: credit holds open, ledger invariant violations, job queue depth and failures per
 * queue, and the pool's connections in use and waiting. One scrape reads them in one sequence
 * of statements on one connection (shared by the gauges' collect callbacks).
 */
@Injectable()
export class DatabaseGauges implements OnModuleInit {
  private readonly logger = new Logger('Metrics');
  private ledger?: { at: number; violations: number };
  private inFlight?: Promise<Snapshot>;

  constructor(
    private readonly metrics: MetricsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    const m = this.metrics;
    m.gauge(
      'db_pool_connections',
      'PostgreSQL pool of this process: connections in use (a scrape uses one) and requests waiting',
      ['state'],
      (g) => {
        const pool = (this.dataSource.driver as unknown as { master?: Pool }).master;
        if (pool) {
          g.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
          g.set({ state: 'waiting' }, pool.waitingCount);
        }
        return Promise.resolve();
      },
      'sum',
    );
    m.gauge('credit_holds_open', 'Credit holds open (requests in flight)', [], async (g) => {
      g.set((await this.snapshot()).holdsOpen);
    });
    m.gauge(
      'ledger_invariant_violations',
      'Users whose credits + open holds differ from the sum of their ledger (expected 0)',
      [],
      async (g) => g.set((await this.snapshot()).ledgerViolations),
    );
    m.gauge(
      'job_queue_depth',
      'Jobs waiting per queue (created or retry)',
      ['queue'],
      async (g) => {
        g.reset();
        for (const q of (await this.snapshot()).queues ?? []) g.set({ queue: q.queue }, q.depth);
      },
    );
    m.gauge('job_queue_failed', 'Failed jobs kept per queue', ['queue'], async (g) => {
      g.reset();
      for (const q of (await this.snapshot()).queues ?? []) g.set({ queue: q.queue }, q.failed);
    });
  }

  /** One read per scrape, however many gauges ask for it. */
  private snapshot(): Promise<Snapshot> {
    this.inFlight ??= this.read().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async read(): Promise<Snapshot> {
    const [{ n: holdsOpen }] = (await this.dataSource.query(HOLDS_OPEN_SQL)) as { n: number }[];
    return {
      holdsOpen,
      ledgerViolations: await this.ledgerViolations(),
      queues: await this.queues(),
    };
  }

  /** Users breaking `credits + Σ open holds = Σ ledger` or `credits ≥ 0` (docs/architecture.md). */
  private async ledgerViolations(): Promise<number> {
    const now = Date.now();
    if (!this.ledger || now - this.ledger.at >= LEDGER_CHECK_EVERY_MS) {
      const [{ n }] = (await this.dataSource.query(LEDGER_VIOLATIONS_SQL)) as { n: number }[];
      this.ledger = { at: now, violations: n };
    }
    return this.ledger.violations;
  }

  private async queues(): Promise<Snapshot['queues']> {
    const [{ present }] = (await this.dataSource.query(TABLE_PRESENT_SQL, [JOB_TABLE])) as {
      present: boolean;
    }[];
    if (!present) {
      this.logger.debug('No job queue schema: queue gauges left empty');
      return undefined;
    }
    return (await this.dataSource.query(JOB_QUEUES_SQL)) as {
      queue: string;
      depth: number;
      failed: number;
    }[];
  }
}
