import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { JobsService } from '../jobs/jobs.service';
import type { NoData } from '../jobs/jobs.types';
import { declareQueue } from '../jobs/queue-registry';
import { generationsConfig } from './generations.config';
import { DELETE_OLD_GENERATIONS_SQL } from './generations.sql';

declare module '../jobs/jobs.types' {
  interface JobMap {
    /** Deletes generation records older than GENERATIONS_KEEP_DAYS; scheduled daily. */
    'generations.retention': NoData;
  }
}

/** The daily job that deletes old generation records (one pass at a time). */
export const GENERATIONS_RETENTION_QUEUE = declareQueue('generations.retention');

const DAY_MS = 24 * 3600 * 1000;

/**
 * Keeps generation records GENERATIONS_KEEP_DAYS days (by the Clock): a scheduled job of the job
 * queue deletes older ones every day at 03:17; enqueueing the queue once runs a pass now.
 */
@Injectable()
export class GenerationsRetention implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('GenerationsRetention');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
    @Inject(generationsConfig.KEY) private readonly config: ConfigType<typeof generationsConfig>,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.registerHandler(
      GENERATIONS_RETENTION_QUEUE,
      async () => void (await this.pass()),
      {
        singleton: true,
        retryLimit: 0, // the next day's pass is the retry
      },
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.jobs.started) await this.jobs.schedule(GENERATIONS_RETENTION_QUEUE, '17 3 * * *', {});
  }

  /** Deletes the records made more than GENERATIONS_KEEP_DAYS days before now; answers how many. */
  async pass(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - this.config.keepDays * DAY_MS);
    const [{ deleted }] = await this.dataSource.query<{ deleted: number }[]>(
      DELETE_OLD_GENERATIONS_SQL,
      [before],
    );
    if (deleted)
      this.logger.log(`Deleted ${deleted} generation records older than ${before.toISOString()}`);
    return deleted;
  }
}
