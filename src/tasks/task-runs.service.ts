import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { tasksConfig } from './tasks.config';
import { ThrottlerStorage } from '@nestjs/throttler';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { SessionUser } from '../common/auth/session-user';
import { Clock } from '../common/clock/clock';
import { AppError, CommonErrorCode, RateLimitedError } from '../common/errors/app-error';
import { decodeCursor, pageSize, toPage } from '../common/pagination/pagination';
import { JobsService } from '../jobs/jobs.service';
import { declareQueue } from '../jobs/queue-registry';
import { checkRunInput, stepsOf } from './render-step';
import { TaskRun } from './task-run.entity';
import { CANCEL_QUEUED_RUN_SQL, REQUEST_CANCEL_SQL } from './task-runs.sql';
import type { Task } from './task.entity';
import { TasksService } from './tasks.service';

/** Payload of a run's job. */
export interface RunJob {
  runId: string;
}

declare module '../jobs/jobs.types' {
  interface JobMap {
    /** Executes one run (TaskRunner). */
    'tasks.run': RunJob;
  }
}

/** The queue runs go through (src/jobs); one job per run (`singletonKey` = run id). */
export const RUN_QUEUE = declareQueue('tasks.run');

/** Manual runs are counted per user over this window. */
const MANUAL_RUN_WINDOW_MS = 60_000;

/**
 * Runs of a task: queued here, executed by TaskRunner on whichever instance takes
 * the job, listed newest first, cancelled by flag (the running instance polls it).
 */
@Injectable()
export class TaskRunsService {
  constructor(
    @InjectRepository(TaskRun) private readonly runs: Repository<TaskRun>,
    private readonly tasks: TasksService,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
    @Inject(ThrottlerStorage) private readonly counters: ThrottlerStorage,
    @Inject(tasksConfig.KEY) settings: ConfigType<typeof tasksConfig>,
  ) {
    this.manualRunsPerMinute = settings.manualRunsPerMinute;
  }

  private readonly manualRunsPerMinute: number;

  /**
   * Run now, with an optional input (`{{input}}`); works on a paused task too. Throws NOT_FOUND
   * for another's task, PAYLOAD_TOO_LARGE (413) when the input would make a step's prompt pass
   * MAX_CONTENT_CHARS once rendered, and RATE_LIMITED (429, Retry-After) past
   * TASKS_MANUAL_RUNS_PER_MINUTE manual runs of the user (counted in the rate limits' storage,
   * Redis with REDIS_URL, so every instance shares the count).
   */
  async runNow(user: SessionUser, taskId: string, input?: string): Promise<TaskRun> {
    const task = await this.tasks.get(user, taskId);
    checkRunInput(stepsOf(task), input ?? '');
    const { isBlocked, timeToBlockExpire } = await this.counters.increment(
      `task-run:${user.id}`,
      MANUAL_RUN_WINDOW_MS,
      this.manualRunsPerMinute,
      MANUAL_RUN_WINDOW_MS,
      'task-run',
    );
    if (isBlocked)
      throw new RateLimitedError(
        'Too many manual runs; try again later',
        Math.max(1, timeToBlockExpire),
      );
    return this.enqueue(task, 'manual', null, input ?? null);
  }

  /** Records a queued run and hands it to the queue. */
  async enqueue(
    task: Task,
    trigger: 'schedule' | 'manual',
    scheduledFor: Date | null,
    input: string | null,
  ): Promise<TaskRun> {
    const run = await this.runs.save(
      this.runs.create({ taskId: task.id, userId: task.userId, trigger, scheduledFor, input }),
    );
    // On an instance without the queue (JOBS_ENABLED=false) the run stays queued: the scheduler
    // of an instance with it hands over queued runs older than a minute (TaskScheduler.tick).
    if (this.jobs.started) await this.dispatch(run.id);
    return run;
  }

  /** Hands a queued run to the job queue; a second call while its job waits does nothing. */
  async dispatch(runId: string): Promise<void> {
    await this.jobs.enqueue(RUN_QUEUE, { runId }, { singletonKey: runId });
  }

  /** A page of the task's runs, newest first (`?limit`, `?cursor`). NOT_FOUND for another's task. */
  async list(
    user: SessionUser,
    taskId: string,
    limit?: number,
    cursor?: string,
  ): Promise<{ data: TaskRun[]; nextCursor: string | null }> {
    await this.tasks.get(user, taskId);
    const size = pageSize(limit);
    const qb = this.runs
      .createQueryBuilder('r')
      .where('r."taskId" = :taskId', { taskId })
      .orderBy('r."createdAt"', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .take(size + 1);
    if (cursor) {
      const at = decodeCursor(cursor);
      qb.andWhere('(r."createdAt", r.id) < (:at, :id)', { at: at.at, id: at.id });
    }
    return toPage(await qb.getMany(), size, (r) => r.createdAt);
  }

  /** One run of my task; NOT_FOUND otherwise. */
  async get(user: SessionUser, taskId: string, runId: string): Promise<TaskRun> {
    await this.tasks.get(user, taskId);
    const run = await this.runs.findOneBy({ id: runId, taskId });
    if (!run) throw new AppError(CommonErrorCode.NOT_FOUND, 'Run not found');
    return run;
  }

  /**
   * Cancels a run. Queued: it becomes `cancelled` and never starts. Running: the flag is set;
   * the instance running it (any instance) sees it within TASKS_CANCEL_POLL_MS, aborts the model
   * call and charges what was produced. Finished: CONFLICT (409).
   */
  async cancel(user: SessionUser, taskId: string, runId: string): Promise<TaskRun> {
    await this.get(user, taskId, runId);
    const [, queued] = await this.runs.query(CANCEL_QUEUED_RUN_SQL, [runId, this.clock.now()]);
    if (!queued) {
      const [, running] = await this.runs.query(REQUEST_CANCEL_SQL, [runId]);
      if (!running) throw new AppError(CommonErrorCode.CONFLICT, 'The run has already finished');
    }
    return this.get(user, taskId, runId);
  }
}
