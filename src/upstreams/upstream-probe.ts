import { Injectable } from '@nestjs/common';
import type { UpstreamTarget } from './upstream-router.types';

/**
 * Which call tests an upstream: `chat` (one user turn, maxTokens 1) when it serves a chat model,
 * `embedding` (one one-word text) when it serves embedding models only.
 */
export type ProbeKind = 'chat' | 'embedding';

/** How a one-token call to an upstream went. */
export type ProbeResult =
  | { ok: true; latencyMs: number }
  /** `status`: the upstream's HTTP status when it answered; `message`: its error, never the key. */
  | { ok: false; status?: number; message: string };

/**
 * A one-token call through the adapter of `target.provider` (implemented by the AI module,
 * which this module may not import: `src/ai/routing/upstream-probe.ts` registers itself in UpstreamProbes).
 */
export interface UpstreamProbe {
  /**
   * Calls catalogue model `modelId` on `target`: a chat call with maxTokens 1, or for `kind`
   * `embedding` one embedding of a one-word text. Never throws for an upstream error.
   */
  probe(target: UpstreamTarget, modelId: string, kind: ProbeKind): Promise<ProbeResult>;
}

/**
 * Where the AI module plugs its UpstreamProbe in at start-up, so the admin `/test` route can
 * call an upstream without the upstreams module importing the AI module.
 */
@Injectable()
export class UpstreamProbes {
  private probe?: UpstreamProbe;

  /** Installs the probe (once, by the AI module). */
  register(probe: UpstreamProbe): void {
    this.probe = probe;
  }

  /** The installed probe, or undefined (an app without the AI module). */
  current(): UpstreamProbe | undefined {
    return this.probe;
  }
}
