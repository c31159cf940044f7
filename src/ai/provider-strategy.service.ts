import { Injectable } from '@nestjs/common';
import type { ModelDescriptor, ProviderId } from './model-catalogue';
import { AnthropicProvider } from './providers/anthropic.provider';
import { GoogleProvider } from './providers/google.provider';
import type { ModelProvider } from './providers/model-provider';
import { OpenAiProvider } from './providers/openai.provider';

/** Picks the adapter for a model's `providerId`; an unknown provider id is an error (spec). */
@Injectable()
export class ProviderStrategy {
  private readonly providers: Record<ProviderId, ModelProvider>;

  constructor(openai: OpenAiProvider, anthropic: AnthropicProvider, google: GoogleProvider) {
    this.providers = { openai, anthropic, google };
  }

  for(model: Pick<ModelDescriptor, 'providerId'>): ModelProvider {
    const provider = this.providers[model.providerId];
    if (!provider) throw new Error(`Unknown model provider: ${model.providerId}`);
    return provider;
  }
}
