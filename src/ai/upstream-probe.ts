import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { ProbeResult, UpstreamProbe } from '../upstreams/upstream-probe';
import { UpstreamProbes } from '../upstreams/upstream-probe';
import type { UpstreamTarget } from '../upstreams/upstream-router.types';
import { ProviderStrategy } from './provider-strategy.service';
import { ProviderError } from './providers/model-provider';

/**
 * The admin `/test` call of an upstream: one user turn, maxTokens 1, through the adapter of the
 * upstream's protocol, sent to `target` (its base URL, key and model id), unrouted; installed
 * into the upstreams module's UpstreamProbes at start-up.
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

  async probe(target: UpstreamTarget, _modelId: string): Promise<ProbeResult> {
    const started = performance.now();
    try {
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
}
