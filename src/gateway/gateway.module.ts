import { Module } from '@nestjs/common';
import { AiModule } from '../ai/ai.module';
import { ModelsModule } from '../models/models.module';
import { EmbeddingsController } from './embeddings.controller';
import { GatewayController } from './gateway.controller';
import { MessagesController } from './messages.controller';
import { ResponsesController } from './responses.controller';
import { StoredResponses } from './stored-responses.service';

/**
 * `/v1`: the OpenAI wire formats (Chat Completions, Responses, Embeddings) and Anthropic's
 * Messages over AiService and EmbeddingsService; it meters nothing itself. StoredResponses keeps
 * `/v1/responses` answers.
 */
@Module({
  imports: [AiModule, ModelsModule],
  controllers: [GatewayController, EmbeddingsController, ResponsesController, MessagesController],
  providers: [StoredResponses],
})
export class GatewayModule {}
