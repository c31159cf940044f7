import { Module } from '@nestjs/common';
import { ConfigSliceModule } from '../config/config-slice.module';
import { ModelCatalogue } from './model-catalogue';
import { modelsConfig } from './models.config';

/**
 * The model catalogue (configuration only, no feature module), below every module that names a
 * model: ai, chats, users, tasks and gateway validate model ids and parameters here.
 */
@Module({
  imports: [ConfigSliceModule.forFeature(modelsConfig)],
  providers: [ModelCatalogue],
  exports: [ModelCatalogue],
})
export class ModelsModule {}
