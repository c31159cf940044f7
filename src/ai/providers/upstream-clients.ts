import type { UpstreamTarget } from '../../upstreams/upstream-router.types';

/**
 * One SDK client per upstream, built on first use from the target's base URL and key and kept
 * until the upstream's row changes (a new `version` replaces the client). Clients of deleted
 * upstreams stay until the process ends; they hold no connection of their own once idle.
 */
export class UpstreamClients<C> {
  private readonly clients = new Map<string, { version: string; client: C }>();

  constructor(private readonly build: (target: UpstreamTarget) => C) {}

  /** The client of `target`: the cached one when its `(id, version)` is unchanged. */
  of(target: UpstreamTarget): C {
    const cached = this.clients.get(target.id);
    if (cached?.version === target.version) return cached.client;
    const client = this.build(target);
    this.clients.set(target.id, { version: target.version, client });
    return client;
  }
}

/**
 * The key an SDK is built with for a target without one (an OpenAI-compatible server that checks
 * none, such as a local Ollama): the SDKs refuse to start without any key.
 */
export const NO_KEY = 'none';
