import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { JobsService } from '../jobs/jobs.service';
import type { NoData } from '../jobs/jobs.types';
import { declareQueue } from '../jobs/queue-registry';
import { nextRun } from './schedule';
import { TaskRunsService } from './task-runs.service';
import { INSERT_SCHEDULED_RUN_SQL, LOST_QUEUED_RUNS_SQL } from './task-runs.sql';
import { CLAIM_DUE_TASK_SQL, DUE_TASKS_SQL } from './tasks.sql';

declare module '../jobs/jobs.types' {
  interface JobMap {
    /** Turns due tasks into runs; scheduled every minute. */
    'tasks.tick': NoData;
  }
}

/** The scheduled job that turns due tasks into runs (every minute, one pass at a time). */
export const TICK_QUEUE = declareQueue('tasks.tick');
/** Due tasks claimed per tick. */
const BATCH = 100;
/** A run still queued this long after it was recorded lost its job: it is handed over again. */
const REDISPATCH_AFTER_MS = 60_000;

/**
 * Turns due tasks into runs, in a job of TICK_QUEUE scheduled every minute (task schedules are
 * whole minutes; pg-boss sends the job up to about 20 s into the minute), one pass at a time
 * across instances; enqueueing TICK_QUEUE once runs a pass now. A task is claimed by one
 * conditional UPDATE that moves `nextRunAt` from the due time to the first occurrence after
 * *now*: exactly one pass wins each due time, even beside a manual `tick()`, and however many
 * occurrences were missed while every instance was down, the restart makes one run, never a
 * burst. An instance without the queue (JOBS_ENABLED=false) neither schedules nor runs the
 * tick: it could not queue the runs; an instance with the queue ticks for it.
 */
@Injectable()
export class TaskScheduler implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('TaskScheduler');

  constructor(
    private readonly dataSource: DataSource,
    private readonly runs: TaskRunsService,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.registerHandler(TICK_QUEUE, () => this.pass(), {
      singleton: true,
      retryLimit: 0, // the next minute's pass is the retry
      keepSeconds: 24 * 3600,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.jobs.started) await this.jobs.schedule(TICK_QUEUE, '* * * * *', {});
  }

  /** Ticks until a tick queues less than a full batch, so a busy minute is not spread over hours. */
  private async pass(): Promise<void> {
    try {
      let queued: number;
      do queued = await this.tick();
      while (queued === BATCH);
    } catch (err) {
      this.logger.error(`Task tick failed: ${(err as Error).message}`);
      throw err;
    }
  }

  /**
   * One pass: claims the due tasks (up to 100) and queues a scheduled run for each, then hands
   * over queued runs whose job was lost (a crash between recording and queueing). Returns the
   * number of runs queued by this instance.
   */
  async tick(): Promise<number> {
    const now = this.clock.now();
    const due: { id: string; userId: string; cron: string; timezone: string; nextRunAt: Date }[] =
      await this.dataSource.query(DUE_TASKS_SQL, [now, BATCH]);
    let queued = 0;
    for (const task of due) {
      const next = nextRun(task, now);
      const runId = await this.dataSource.transaction(async (m) => {
        const [, claimed] = await m.query(CLAIM_DUE_TASK_SQL, [task.id, task.nextRunAt, next]);
        if (!claimed) return null; // another instance took this due time
        const [row] = await m.query(INSERT_SCHEDULED_RUN_SQL, [
          task.id,
          task.userId,
          task.nextRunAt,
        ]);
        return (row?.id as string | undefined) ?? null;
      });
      if (runId) {
        await this.runs.dispatch(runId);
        queued++;
      }
    }
    const lost: { id: string }[] = await this.dataSource.query(LOST_QUEUED_RUNS_SQL, [
      REDISPATCH_AFTER_MS / 1000,
      BATCH,
    ]);
    for (const run of lost) await this.runs.dispatch(run.id);
    return queued;
  }
}
