import type { ProviderCredentials as ProviderConfig } from '../config/shared.config';
import type { RoutableUpstream } from './upstream-order';
import type { UpstreamProvider } from './upstream-router.types';

/** Ids of the implicit upstreams built from the environment, one per provider with a key. */
export const ENV_UPSTREAM_ID = /^env:(openai|anthropic|google)$/;

/**
 * The environment's upstreams: for each of OPENAI_*, ANTHROPIC_*, GEMINI_* with an API key,
 * `env:<provider>` (priority 0, weight 1, every catalogue model of its family), so a setup
 * without upstream rows routes exactly as before. Named like their id; read-only.
 */
export function environmentUpstreams(config: {
  openai: ProviderConfig;
  anthropic: ProviderConfig;
  gemini: ProviderConfig;
}): RoutableUpstream[] {
  const sources: [UpstreamProvider, ProviderConfig][] = [
    ['openai', config.openai],
    ['anthropic', config.anthropic],
    ['google', config.gemini],
  ];
  return sources
    .filter(([, c]) => !!c.apiKey)
    .map(([provider, c]) => ({
      id: `env:${provider}`,
      name: `env:${provider}`,
      provider,
      baseUrl: c.baseUrl,
      apiKey: c.apiKey,
      models: [],
      modelMap: {},
      priority: 0,
      weight: 1,
      enabled: true,
      rpm: null,
      tpm: null,
      version: 'env',
    }));
}
