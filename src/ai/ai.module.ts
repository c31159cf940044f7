import { Module } from '@nestjs/common';
import { ChatsModule } from '../chats/chats.module';
import { UsersModule } from '../users/users.module';
import { UploadsModule } from '../uploads/uploads.module';
import { PluginsModule } from '../plugins/plugins.module';
import { CreditsModule } from '../credits/credits.module';
import { SharesModule } from '../shares/shares.module';
import { AiController } from './ai.controller';
import { AiRunner } from './ai-runner.service';
import { ProtocolRunner } from './protocol-runner.service';
import { AiService } from './ai.service';
import { AdmissionContext } from './admission-context';
import { AiAdmissions } from './ai-admissions.service';
import { EmbeddingsService } from './embeddings.service';
import { EstimateController } from './estimate.controller';
import { ModelsModule } from '../models/models.module';
import { OutputLimits } from './output-limits';
import { ProviderStrategy } from './provider-strategy.service';
import { AiChatController } from './ui-chat/ai-chat.controller';
import { AnthropicProvider } from './providers/anthropic.provider';
import { GoogleProvider } from './providers/google.provider';
import { OpenAiProvider } from './providers/openai.provider';
import { AiUpstreamProbe } from './upstream-probe';
import { UpstreamsModule } from '../upstreams/upstreams.module';

@Module({
  imports: [
    CreditsModule,
    ChatsModule,
    SharesModule,
    ModelsModule,
    UsersModule,
    UploadsModule,
    PluginsModule,
    UpstreamsModule,
  ],
  controllers: [AiController, AiChatController, EstimateController],
  providers: [
    AiService,
    AiAdmissions,
    AdmissionContext,
    OutputLimits,
    AiRunner,
    ProtocolRunner,
    EmbeddingsService,
    ProviderStrategy,
    OpenAiProvider,
    AnthropicProvider,
    GoogleProvider,
    AiUpstreamProbe,
  ],
  // AiService and ProtocolRunner: the /v1 gateway; AiRunner: metered generations outside a request (scheduled tasks);
  // EmbeddingsService: chat search.
  exports: [AiService, AiRunner, ProtocolRunner, EmbeddingsService],
})
export class AiModule {}
