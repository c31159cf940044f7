import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { jobsConfig } from './jobs.config';
import { PgBoss } from 'pg-boss';
import { DataSource } from 'typeorm';
import type { EnqueueOptions, JobHandler, JobMap, QueueName, QueueSettings } from './jobs.types';
import { declaredQueues } from './queue-registry';

/** pg-boss's tables live in this schema of the service's database. */
export const JOBS_SCHEMA = 'pgboss';

interface Registration {
  queue: QueueName;
  handler: JobHandler<unknown>;
  settings: QueueSettings;
}

/**
 * The job queue (architecture "jobs"): durable jobs in PostgreSQL, each done once across
 * instances, retried with backoff, kept in a history. Every instance starts it at bootstrap
 * (after every module registered its handlers in `onModuleInit`) and stops it at shutdown,
 * letting running handlers finish. With JOBS_ENABLED=false nothing starts and `enqueue` throws.
 */
@Injectable()
export class JobsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly registrations = new Map<QueueName, Registration>();
  private readonly config: ConfigType<typeof jobsConfig>;
  private boss?: PgBoss;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(jobsConfig.KEY) jobs: ConfigType<typeof jobsConfig>,
  ) {
    this.config = jobs;
  }

  /**
   * Names a queue and its handler. Call in `onModuleInit`; a call after start creates the queue
   * and starts its worker at once. Throws when the queue already has a handler, or when the
   * settings ask for both `unique` and `singleton`.
   */
  async registerHandler<K extends QueueName>(
    queue: K,
    handler: JobHandler<JobMap[K]>,
    settings: QueueSettings = {},
  ): Promise<void> {
    if (this.registrations.has(queue)) throw new Error(`queue ${queue} already has a handler`);
    if (settings.unique && settings.singleton)
      throw new Error(`queue ${queue} cannot be both unique and singleton`);
    const reg = { queue, handler: handler as JobHandler<unknown>, settings };
    this.registrations.set(queue, reg);
    if (this.boss) await this.startQueue(this.boss, reg);
  }

  /**
   * Adds a job; returns its id, or null when a `unique` queue already holds a job with the same
   * `singletonKey` (or a `singleton` queue already holds a waiting job). Throws when the queue is
   * not registered or the queue is not running.
   */
  async enqueue<K extends QueueName>(
    queue: K,
    data: JobMap[K],
    options: EnqueueOptions = {},
  ): Promise<string | null> {
    const boss = this.running();
    if (!this.registrations.has(queue)) throw new Error(`queue ${queue} is not registered`);
    // pg-boss validates present keys, so an unset option is left out rather than undefined.
    const send: Record<string, unknown> = {};
    if (options.singletonKey !== undefined) send.singletonKey = options.singletonKey;
    if (options.startAfter !== undefined) send.startAfter = options.startAfter;
    if (options.retryLimit !== undefined) send.retryLimit = options.retryLimit;
    return boss.send(queue, data as object, send);
  }

  /**
   * Enqueues `data` on `queue` on a cron schedule (5 fields, in `timezone`), once per occurrence
   * across instances; `key` tells several schedules of one queue apart. Missed occurrences while
   * every instance was down become one job. pg-boss looks at schedules every 15 s (at most every
   * JOBS_SUPERVISE_INTERVAL_SECONDS) and sends at most one job per minute: an occurrence is sent
   * up to that long after its time. Throws when the queue is not registered or not running.
   */
  async schedule<K extends QueueName>(
    queue: K,
    cron: string,
    data: JobMap[K],
    options: { timezone?: string; key?: string } = {},
  ): Promise<void> {
    const boss = this.running();
    if (!this.registrations.has(queue)) throw new Error(`queue ${queue} is not registered`);
    await boss.schedule(queue, cron, data as object, {
      tz: options.timezone ?? 'UTC',
      key: options.key,
      missed: 'once',
    });
  }

  /** Stops a schedule made by `schedule`. */
  async unschedule(queue: QueueName, key?: string): Promise<void> {
    await this.running().unschedule(queue, key);
  }

  /**
   * True while `queue` holds a job with `singletonKey` that may still run: queued, waiting for
   * a retry, or active. False once every such job completed, failed for good or was removed.
   */
  async hasLiveJob(queue: QueueName, singletonKey: string): Promise<boolean> {
    const jobs = await this.running().findJobs(queue, { key: singletonKey });
    return jobs.some((j) => j.state === 'created' || j.state === 'retry' || j.state === 'active');
  }

  /** True once started on this instance. */
  get started(): boolean {
    return this.boss !== undefined;
  }

  /**
   * Refuses to start when a declared queue (`declareQueue`) has no handler: every module has
   * registered its handlers in `onModuleInit` by now, so a queue without one would only collect
   * jobs that nothing runs. Checked with the queue disabled too: it is a wiring error.
   */
  async onApplicationBootstrap(): Promise<void> {
    this.assertHandled(declaredQueues());
    if (!this.config.enabled) {
      this.logger.log('Job queue disabled (JOBS_ENABLED=false)');
      return;
    }
    const url = (this.dataSource.options as { url?: string }).url;
    const boss = new PgBoss({
      connectionString: url,
      schema: JOBS_SCHEMA,
      max: this.config.poolSize,
      application_name: 'jobs',
      superviseIntervalSeconds: this.config.superviseIntervalSeconds,
      monitorIntervalSeconds: this.config.superviseIntervalSeconds,
      // pg-boss cron only serves `schedule` (the minute passes: task tick, sweeps); its check is
      // one cheap claim, and every 15 s keeps an occurrence at most about 20 s late.
      cronMonitorIntervalSeconds: Math.min(15, this.config.superviseIntervalSeconds),
      openTelemetry: { enabled: false },
    });
    // Without a listener an 'error' event would crash the process; pg-boss retries by itself.
    boss.on('error', (err: Error) => this.logger.error(`Job queue: ${err.message}`));
    await boss.start();
    this.boss = boss;
    for (const reg of this.registrations.values()) await this.startQueue(boss, reg);
  }

  async onApplicationShutdown(): Promise<void> {
    const boss = this.boss;
    this.boss = undefined;
    // Graceful: running handlers finish (up to 10 s) before the pool closes.
    await boss?.stop({ graceful: true, timeout: 10_000 });
  }

  /** Throws an Error naming every queue of `queues` that has no registered handler. */
  private assertHandled(queues: readonly QueueName[]): void {
    const missing = queues.filter((q) => !this.registrations.has(q));
    if (missing.length)
      throw new Error(
        `job queues without a handler: ${missing.join(', ')} (register in onModuleInit)`,
      );
  }

  private running(): PgBoss {
    if (!this.boss) throw new Error('the job queue is not running on this instance');
    return this.boss;
  }

  private async startQueue(boss: PgBoss, reg: Registration): Promise<void> {
    const s = reg.settings;
    const options = {
      retryLimit: s.retryLimit ?? 2,
      retryDelay: s.retryDelaySeconds ?? 1,
      retryBackoff: s.retryBackoff ?? true,
      expireInSeconds: s.expireInSeconds ?? 900,
      ...(s.heartbeatSeconds ? { heartbeatSeconds: s.heartbeatSeconds } : {}),
      deleteAfterSeconds: s.keepSeconds ?? 7 * 24 * 3600,
    };
    // The policy is fixed when a queue is created; other settings follow the code on each start.
    if (await boss.getQueue(reg.queue)) await boss.updateQueue(reg.queue, options);
    else
      await boss.createQueue(reg.queue, {
        ...options,
        // exclusive: one queued-or-active job per singletonKey; stately: one active plus one
        // waiting in the whole queue.
        policy: s.unique ? 'exclusive' : s.singleton ? 'stately' : 'standard',
      });
    await boss.work(
      reg.queue,
      {
        pollingIntervalSeconds: this.config.pollIntervalSeconds,
        batchSize: 1,
        localConcurrency: s.concurrency ?? 1,
      },
      async ([job]) =>
        reg.handler({
          id: job.id,
          queue: reg.queue,
          data: job.data,
          retryCount: job.retryCount,
          signal: job.signal,
        }),
    );
  }
}
