import { Injectable } from '@nestjs/common';
import type { ModelDescriptor } from '../models/model-catalogue';
import type { ProviderId } from '../models/model-entry';
import { AnthropicProvider } from './providers/anthropic.provider';
import { GoogleProvider } from './providers/google.provider';
import type { EmbeddingProvider, ModelProvider } from './providers/model-provider';
import { OpenAiProvider } from './providers/openai.provider';

/** Picks the adapter for a model's `providerId`; an unknown provider id is an error (spec). */
@Injectable()
export class ProviderStrategy {
  private readonly providers: Record<ProviderId, ModelProvider>;

  private readonly embedders: Partial<Record<ProviderId, EmbeddingProvider>>;

  constructor(openai: OpenAiProvider, anthropic: AnthropicProvider, google: GoogleProvider) {
    this.providers = { openai, anthropic, google };
    this.embedders = { openai, google };
  }

  /** The adapter embedding texts for an `embedding` model; throws for a provider without one. */
  embedderFor(model: Pick<ModelDescriptor, 'providerId'>): EmbeddingProvider {
    const embedder = this.embedders[model.providerId];
    if (!embedder) throw new Error(`Provider ${model.providerId} has no embeddings API`);
    return embedder;
  }

  for(model: Pick<ModelDescriptor, 'providerId'>): ModelProvider {
    const provider = this.providers[model.providerId];
    if (!provider) throw new Error(`Unknown model provider: ${model.providerId}`);
    return provider;
  }
}
