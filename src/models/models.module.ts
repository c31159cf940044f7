import { Module } from '@nestjs/common';
import { ModelCatalogue } from './model-catalogue';

/**
 * The model catalogue (configuration only, no feature module), below every module that names a
 * model: ai, chats, users, tasks and gateway validate model ids and parameters here.
 */
@Module({ providers: [ModelCatalogue], exports: [ModelCatalogue] })
export class ModelsModule {}
