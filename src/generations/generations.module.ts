import { Module } from '@nestjs/common';
import { ConfigSliceModule } from '../config/config-slice.module';
import { JobsModule } from '../jobs/jobs.module';
import { GenerationsController } from './generations.controller';
import { generationsConfig } from './generations.config';
import { GenerationsRetention } from './generations-retention.service';
import { GenerationsService } from './generations.service';

/**
 * Generation records: one row per model call, written by the settlement statement of credits
 * (`settle_hold`); read here (`GET /api/generations`) and by gateway (`GET /v1/generations/{id}`);
 * old rows deleted by the retention job.
 */
@Module({
  imports: [ConfigSliceModule.forFeature(generationsConfig), JobsModule],
  controllers: [GenerationsController],
  providers: [GenerationsService, GenerationsRetention],
  exports: [GenerationsService],
})
export class GenerationsModule {}
