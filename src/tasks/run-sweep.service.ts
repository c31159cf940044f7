import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { CommonErrorCode } from '../common/errors/app-error';
import { JobsService } from '../jobs/jobs.service';
import type { NoData } from '../jobs/jobs.types';
import { declareQueue } from '../jobs/queue-registry';
import { failRun } from './run-failure';
import { RUN_QUEUE } from './task-runs.service';
import { STALE_RUNNING_RUNS_SQL } from './task-runs.sql';

declare module '../jobs/jobs.types' {
  interface JobMap {
    /** Ends lost runs; scheduled every minute. */
    'tasks.sweep': NoData;
  }
}

/** The scheduled job that ends lost runs (once a minute, on one instance). */
export const SWEEP_QUEUE = declareQueue('tasks.sweep');
/** A run must have been running this long before the sweep looks at its job. */
const SWEEP_AFTER_SECONDS = 120;
/** Runs looked at per pass. */
const BATCH = 100;

/**
 * Ends runs whose job is gone: a run stays `running` only while its job is queued, waiting for
 * a retry or active. When the job failed for good without the handler recording it (the
 * process died on the last attempt) or was removed, the run would show `running` forever;
 * this marks it `failed`, so its owner sees why and the task's failure count moves.
 */
@Injectable()
export class RunSweep implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('TaskRunSweep');

  constructor(
    private readonly dataSource: DataSource,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.registerHandler(SWEEP_QUEUE, async () => {
      const ended = await this.sweep();
      if (ended) this.logger.warn(`Ended ${ended} task run(s) whose job was gone`);
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.jobs.started) await this.jobs.schedule(SWEEP_QUEUE, '* * * * *', {});
  }

  /** One pass; returns how many runs it ended as `failed`. */
  async sweep(): Promise<number> {
    const stale: { id: string }[] = await this.dataSource.query(STALE_RUNNING_RUNS_SQL, [
      SWEEP_AFTER_SECONDS,
      BATCH,
    ]);
    let ended = 0;
    for (const { id } of stale) {
      if (await this.jobs.hasLiveJob(RUN_QUEUE, id)) continue;
      const error = {
        code: CommonErrorCode.INTERNAL_ERROR,
        message: 'The run stopped without finishing',
      };
      if (await failRun(this.dataSource.manager, id, error, this.clock.now())) ended++;
    }
    return ended;
  }
}
