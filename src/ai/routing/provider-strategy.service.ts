import { Inject, Injectable } from '@nestjs/common';
import type { ModelDescriptor } from '../../models/model-catalogue';
import type { ProviderId } from '../../models/model-entry';
import {
  UPSTREAM_ROUTER,
  type UpstreamProvider,
  type UpstreamRouting,
} from '../../upstreams/upstream-router.types';
import { AnthropicProvider } from '../providers/anthropic.provider';
import { GoogleProvider } from '../providers/google.provider';
import type { EmbeddingProvider, ModelProvider } from '../providers/model-provider';
import { OpenAiProvider } from '../providers/openai.provider';
import { RoutedEmbedder } from './routed-embedder';
import { RoutedProvider } from './routed-provider';

/** The adapter of each upstream protocol: `openai-compatible` servers speak OpenAI's. */
const PROTOCOL_ADAPTER: Record<UpstreamProvider, ProviderId> = {
  openai: 'openai',
  'openai-compatible': 'openai',
  anthropic: 'anthropic',
  google: 'google',
};

/** The embedding adapter of each upstream protocol (Anthropic has no embeddings API). */
const PROTOCOL_EMBEDDER: Record<UpstreamProvider, 'openai' | 'google' | undefined> = {
  openai: 'openai',
  'openai-compatible': 'openai',
  anthropic: undefined,
  google: 'google',
};

/**
 * Picks the adapter for a model's `providerId`; an unknown provider id is an error (spec). Chat
 * calls are routed over the model's upstreams (see RoutedProvider), and so are embeddings (see
 * RoutedEmbedder).
 */
@Injectable()
export class ProviderStrategy {
  private readonly providers: Record<ProviderId, ModelProvider>;

  private readonly embedders: Partial<Record<ProviderId, EmbeddingProvider>>;

  constructor(
    openai: OpenAiProvider,
    anthropic: AnthropicProvider,
    google: GoogleProvider,
    @Inject(UPSTREAM_ROUTER) private readonly router: UpstreamRouting,
  ) {
    this.providers = { openai, anthropic, google };
    this.embedders = { openai, google };
  }

  /**
   * Brings the catalogue's availability up to date with the upstream rows (a model served only
   * by a row added on another instance); no query while this process's copy is recent.
   */
  async refreshUpstreams(): Promise<void> {
    await this.router.refresh?.();
  }

  /**
   * The embedder of an `embedding` model, routed over its upstreams (an `openai-compatible` one
   * through OpenAI's adapter); throws for a provider without an embeddings API.
   */
  embedderFor(model: Pick<ModelDescriptor, 'id' | 'providerId'>): EmbeddingProvider {
    const embedder = this.embedders[model.providerId];
    if (!embedder) throw new Error(`Provider ${model.providerId} has no embeddings API`);
    return new RoutedEmbedder(
      this.router,
      { id: model.id, providerId: model.providerId },
      embedder,
      (protocol) => this.protocolEmbedder(protocol),
    );
  }

  /** The adapter of one provider, unrouted (environment configuration, or a given target). */
  adapterOf(model: Pick<ModelDescriptor, 'providerId'>): ModelProvider {
    const provider = this.providers[model.providerId];
    if (!provider) throw new Error(`Unknown model provider: ${model.providerId}`);
    return provider;
  }

  /** The adapter speaking an upstream's protocol (`openai-compatible`: OpenAI's). */
  protocolAdapter(protocol: UpstreamProvider): ModelProvider {
    return this.providers[PROTOCOL_ADAPTER[protocol]];
  }

  /**
   * The embedding adapter speaking an upstream's protocol (`openai-compatible`: OpenAI's), unrouted;
   * undefined for a protocol without an embeddings API (Anthropic).
   */
  protocolEmbedder(protocol: UpstreamProvider): EmbeddingProvider | undefined {
    const id = PROTOCOL_EMBEDDER[protocol];
    return id && this.embedders[id];
  }

  /**
   * The provider of one admission: `model` over its upstreams, then each of `fallbacks` (already
   * checked: known chat models with the capabilities the request needs), in order.
   */
  for(model: ModelDescriptor, fallbacks: ModelDescriptor[] = []): ModelProvider {
    return new RoutedProvider(
      this.router,
      [model, ...fallbacks].map((m) => ({ model: m, adapter: this.adapterOf(m) })),
      (protocol) => this.protocolAdapter(protocol),
    );
  }
}
