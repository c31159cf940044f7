import { Module } from '@nestjs/common';
import { JobsService } from './jobs.service';

/**
 * The one wrapper of the job queue (pg-boss 12, schema `pgboss` of the service's database).
 * Feature modules import it and use JobsService; none imports pg-boss. Depends on no feature.
 */
@Module({ providers: [JobsService], exports: [JobsService] })
export class JobsModule {}
