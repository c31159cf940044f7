import { Injectable } from '@nestjs/common';
import type { UpstreamTarget } from './upstream-router.types';

/** How a one-token call to an upstream went. */
export type ProbeResult =
  | { ok: true; latencyMs: number }
  /** `status`: the upstream's HTTP status when it answered; `message`: its error, never the key. */
  | { ok: false; status?: number; message: string };

/**
 * A one-token call through the adapter of `target.provider` (implemented by the AI module,
 * which this module may not import: `src/ai/upstream-probe.ts` registers itself in UpstreamProbes).
 */
export interface UpstreamProbe {
  /** Calls catalogue model `modelId` on `target` with maxTokens 1. Never throws for an upstream error. */
  probe(target: UpstreamTarget, modelId: string): Promise<ProbeResult>;
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
