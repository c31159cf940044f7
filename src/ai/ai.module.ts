import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { AiController } from './ai.controller';
import { AiService } from './ai.service';
import { ModelCatalogue } from './model-catalogue';
import { ProviderStrategy } from './provider-strategy.service';
import { OpenAiProvider } from './providers/openai.provider';

@Module({
  imports: [CreditsModule],
  controllers: [AiController],
  providers: [AiService, ModelCatalogue, ProviderStrategy, OpenAiProvider],
})
export class AiModule {}
