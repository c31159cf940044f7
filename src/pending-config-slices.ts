import { type AiConfig, AiEnvironment, buildAiConfig } from './ai/ai.config';
import {
  type AnthropicConfig,
  buildProvidersConfig,
  type ProviderConfig,
  ProvidersEnvironment,
} from './ai/providers/providers.config';
import type { AuthConfig } from './auth/auth.config';
import { defineConfigSlice } from './config/config-slice';
import {
  buildCreditsConfig,
  type CreditsConfig,
  CreditsEnvironment,
} from './credits/credits.config';
import type { SearchConfig } from './search/search.config';

/**
 * The slices of the modules that still read `ConfigService<AppConfig, true>` (ai, gateway,
 * credits, models), defined here from their own environment classes and builders until each
 * module calls `defineConfigSlice` in its `*.config.ts` and injects its slice; then this file
 * goes. Their variables are validated at boot with every other slice's (a variable also read by
 * a newer slice, such as CREDITS_PER_USD or OPENAI_API_KEY, is reported once).
 */
export const PENDING_SLICES = [
  defineConfigSlice({ name: 'ai', environment: AiEnvironment, build: buildAiConfig }),
  defineConfigSlice({
    name: 'credits',
    environment: CreditsEnvironment,
    build: buildCreditsConfig,
  }),
  defineConfigSlice({
    name: 'openai',
    environment: ProvidersEnvironment,
    build: (env): ProviderConfig => buildProvidersConfig(env).openai,
  }),
  defineConfigSlice({
    name: 'anthropic',
    environment: ProvidersEnvironment,
    build: (env): AnthropicConfig => buildProvidersConfig(env).anthropic,
  }),
  defineConfigSlice({
    name: 'gemini',
    environment: ProvidersEnvironment,
    build: (env): ProviderConfig => buildProvidersConfig(env).gemini,
  }),
];

// What those modules read through ConfigService: their own slices, and `auth` and `search`.
declare module './config/app.config' {
  interface AppConfig {
    ai: AiConfig;
    credits: CreditsConfig;
    openai: ProviderConfig;
    anthropic: AnthropicConfig;
    gemini: ProviderConfig;
    auth: AuthConfig;
    search: SearchConfig;
  }
}
