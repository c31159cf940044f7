import { PricesModule } from '../prices/prices.module';
import { Module } from '@nestjs/common';
import { AiModule } from '../ai';
import { ModelsModule } from '../models/models.module';
import { AnthropicMessagesController } from './anthropic-messages.controller';
import { EmbeddingsController } from './embeddings.controller';
import { GatewayController } from './gateway.controller';
import { GatewayGenerationsController } from './generations.controller';
import { GenerationsModule } from '../generations/generations.module';
import { ResponsesController } from './responses.controller';
import { StoredResponses } from './stored-responses.service';

/**
 * `/v1`: the OpenAI wire formats (Chat Completions, Responses, Embeddings) and Anthropic's
 * Messages over AiService and EmbeddingsService; it meters nothing itself. StoredResponses keeps
 * `/v1/responses` answers.
 */
@Module({
  imports: [AiModule, ModelsModule, PricesModule, GenerationsModule],
  controllers: [
    GatewayController,
    EmbeddingsController,
    ResponsesController,
    AnthropicMessagesController,
    GatewayGenerationsController,
  ],
  providers: [StoredResponses],
})
export class GatewayModule {}
