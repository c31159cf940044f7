import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { ProbeKind, ProbeResult, UpstreamProbe } from '../../upstreams/upstream-probe';
import { UpstreamProbes } from '../../upstreams/upstream-probe';
import type { UpstreamTarget } from '../../upstreams/upstream-router.types';
import { ProviderStrategy } from './provider-strategy.service';
import { ProviderError } from '../providers/model-provider';

/**
 * The admin `/test` call of an upstream, sent to `target` (its base URL, key and model id),
 * unrouted, through the adapter of the upstream's protocol: one user turn with maxTokens 1 for a
 * chat model, or one embedding of the one-word text `ping` for an embedding model. Installed into
 * the upstreams module's UpstreamProbes at start-up.
 */
@Injectable()
export class AiUpstreamProbe implements UpstreamProbe, OnModuleInit {
  constructor(
    private readonly probes: UpstreamProbes,
    private readonly strategy: ProviderStrategy,
  ) {}

  onModuleInit(): void {
    this.probes.register(this);
  }

  async probe(target: UpstreamTarget, modelId: string, kind: ProbeKind): Promise<ProbeResult> {
    const started = performance.now();
    try {
      if (kind === 'embedding') await this.embed(target, modelId);
      else
        await this.strategy.protocolAdapter(target.provider).generate(
          {
            model: target.upstreamModel,
            messages: [{ role: 'user', content: 'ping' }],
            maxTokens: 1,
          },
          target,
        );
      return { ok: true, latencyMs: Math.round(performance.now() - started) };
    } catch (e) {
      const status = e instanceof ProviderError ? e.upstreamStatus : undefined;
      // A provider may quote the key it refused: never pass it on.
      const raw = e instanceof Error ? e.message : String(e);
      const message = target.apiKey ? raw.split(target.apiKey).join('[redacted]') : raw;
      return { ok: false, ...(status ? { status } : {}), message };
    }
  }

  /**
   * One embedding of `ping` on `target`. Throws the adapter's ProviderError, or an Error when the
   * protocol has no embeddings API.
   */
  private async embed(target: UpstreamTarget, modelId: string): Promise<void> {
    const embedder = this.strategy.protocolEmbedder(target.provider);
    if (!embedder) throw new Error(`The ${target.provider} protocol has no embeddings API`);
    await embedder.embed({ model: modelId, texts: ['ping'], purpose: 'query' }, target);
  }
}
