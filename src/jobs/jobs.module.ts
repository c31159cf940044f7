import { Module } from '@nestjs/common';
import { JobsService } from './jobs.service';
import { ConfigSliceModule } from '../config/config-slice.module';
import { jobsConfig } from './jobs.config';

/**
 * The one wrapper of the job queue (pg-boss 12, schema `pgboss` of the service's database).
 * Feature modules import it and use JobsService; none imports pg-boss. Depends on no feature.
 */
@Module({
  imports: [ConfigSliceModule.forFeature(jobsConfig)],
  providers: [JobsService],
  exports: [JobsService],
})
export class JobsModule {}
