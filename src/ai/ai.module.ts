import { Module } from '@nestjs/common';
import { ConfigSliceModule } from '../config/config-slice.module';
import { aiConfig } from './ai.config';
import { ChatsModule } from '../chats/chats.module';
import { UsersModule } from '../users/users.module';
import { UploadsModule } from '../uploads/uploads.module';
import { PluginsModule } from '../plugins/plugins.module';
import { CreditsModule } from '../credits/credits.module';
import { SharesModule } from '../shares/shares.module';
import { AiController } from './calls/ai.controller';
import { AiRunner } from './calls/ai-runner.service';
import { ProtocolRunner } from './calls/protocol-runner.service';
import { AiService } from './calls/ai.service';
import { AdmissionContext } from './admission/admission-context';
import { AiAdmissions } from './admission/ai-admissions.service';
import { EmbeddingsService } from './calls/embeddings.service';
import { EstimateController } from './admission/estimate.controller';
import { ModelsModule } from '../models/models.module';
import { OutputLimits } from './admission/output-limits';
import { ProviderStrategy } from './routing/provider-strategy.service';
import { AiChatController } from './ui-chat/ai-chat.controller';
import { AnthropicProvider } from './providers/anthropic.provider';
import { GoogleProvider } from './providers/google.provider';
import { OpenAiProvider } from './providers/openai.provider';
import { AiUpstreamProbe } from './routing/upstream-probe';
import { UpstreamsModule } from '../upstreams/upstreams.module';
import { PricesModule } from '../prices/prices.module';

@Module({
  imports: [
    ConfigSliceModule.forFeature(aiConfig),
    CreditsModule,
    ChatsModule,
    SharesModule,
    ModelsModule,
    UsersModule,
    UploadsModule,
    PluginsModule,
    UpstreamsModule,
    PricesModule,
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
  // CreditsModule: its CreditPrices (the pricing mode) for the modules above that show prices.
  exports: [AiService, AiRunner, ProtocolRunner, EmbeddingsService, CreditsModule],
})
export class AiModule {}
