import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock/clock';
import type { AppConfig } from '../config/app.config';
import { JobsService } from '../jobs/jobs.service';
import { nextRun } from './schedule';
import { TaskRunsService } from './task-runs.service';
import { INSERT_SCHEDULED_RUN_SQL, LOST_QUEUED_RUNS_SQL } from './task-runs.sql';
import { CLAIM_DUE_TASK_SQL, DUE_TASKS_SQL } from './tasks.sql';

/** Due tasks claimed per tick. */
const BATCH = 100;
/** A run still queued this long after it was recorded lost its job: it is handed over again. */
const REDISPATCH_AFTER_MS = 60_000;

/**
 * Turns due tasks into runs, on every instance, every TASKS_TICK_MS. A task is claimed by one
 * conditional UPDATE that moves `nextRunAt` from the due time to the first occurrence after
 * *now*: exactly one instance wins each due time, and however many occurrences were missed
 * while every instance was down, the restart makes one run, never a burst.
 */
@Injectable()
export class TaskScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('TaskScheduler');
  private timer?: NodeJS.Timeout;
  private ticking = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly runs: TaskRunsService,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  onApplicationBootstrap(): void {
    const every = this.config.get('tasks', { infer: true }).tickMs;
    this.timer = setInterval(() => {
      if (this.ticking || !this.jobs.started) return;
      this.ticking = true;
      this.tick()
        .catch((err: Error) => this.logger.error(`Task tick failed: ${err.message}`))
        .finally(() => (this.ticking = false));
    }, every);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
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
