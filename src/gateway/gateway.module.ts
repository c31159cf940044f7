import { Module } from '@nestjs/common';
import { AiModule } from '../ai/ai.module';
import { ModelsModule } from '../models/models.module';
import { EmbeddingsController } from './embeddings.controller';
import { GatewayController } from './gateway.controller';

/**
 * `/v1`: the OpenAI wire format over AiService and EmbeddingsService; it meters nothing itself.
 */
@Module({
  imports: [AiModule, ModelsModule],
  controllers: [GatewayController, EmbeddingsController],
})
export class GatewayModule {}
