import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { creditsConfig } from './credits.config';
import { JobsService } from '../jobs/jobs.service';
import type { NoData } from '../jobs/jobs.types';
import { declareQueue } from '../jobs/queue-registry';
import { CreditHoldsService } from './credit-holds.service';

declare module '../jobs/jobs.types' {
  interface JobMap {
    /** Returns the credits of expired holds; scheduled every minute. */
    'credits.hold-sweep': NoData;
  }
}

/** The scheduled job that returns expired holds (every minute, one pass at a time). */
export const HOLD_SWEEP_QUEUE = declareQueue('credits.hold-sweep');

/**
 * Runs `CreditHoldsService.sweepExpiredHolds` once a minute as a scheduled job of the job queue:
 * one instance sweeps at a time, and enqueueing HOLD_SWEEP_QUEUE once runs a pass now.
 *
 * On an instance where the queue is not running (JOBS_ENABLED=false) the sweep runs on a local
 * timer every HOLD_SWEEP_INTERVAL_MS instead, so that expired holds still come back when no
 * instance runs the queue; the statement skips locked holds, so it may overlap the scheduled job
 * of another instance.
 */
@Injectable()
export class HoldSweep implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('HoldSweep');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly holds: CreditHoldsService,
    private readonly jobs: JobsService,
    @Inject(creditsConfig.KEY) private readonly settings: ConfigType<typeof creditsConfig>,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.registerHandler(HOLD_SWEEP_QUEUE, () => this.pass(), {
      singleton: true,
      retryLimit: 0, // the next minute's pass is the retry
      keepSeconds: 24 * 3600,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.jobs.started) {
      await this.jobs.schedule(HOLD_SWEEP_QUEUE, '* * * * *', {});
      return;
    }
    const every = this.settings.holdSweepIntervalMs;
    this.timer = setInterval(() => {
      this.pass().catch(() => undefined); // logged by pass
    }, every);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  private async pass(): Promise<void> {
    try {
      await this.holds.sweepExpiredHolds();
    } catch (err) {
      this.logger.error(`Hold sweep failed: ${(err as Error).message}`);
      throw err;
    }
  }
}
