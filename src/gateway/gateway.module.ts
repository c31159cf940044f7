import { Module } from '@nestjs/common';
import { AiModule } from '../ai/ai.module';
import { ModelsModule } from '../models/models.module';
import { EmbeddingsController } from './embeddings.controller';
import { GatewayController } from './gateway.controller';
import { AnthropicMessagesController } from './anthropic-messages.controller';

/**
 * `/v1`: the OpenAI and Anthropic wire formats over AiService and EmbeddingsService; it meters
 * nothing itself.
 */
@Module({
  imports: [AiModule, ModelsModule],
  controllers: [GatewayController, EmbeddingsController, AnthropicMessagesController],
})
export class GatewayModule {}
