import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, IsUrl } from 'class-validator';
import {
  emptyToUndefined,
  featureEnvironment,
  HTTP_URL,
  type RawEnv,
  toBool,
} from '../../config/feature-environment';

/** Each model provider's API key and optional base URL (a local server in tests). */
export class ProvidersEnvironment {
  @IsOptional() @Transform(emptyToUndefined) @IsString() OPENAI_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) OPENAI_BASE_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() ANTHROPIC_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) ANTHROPIC_BASE_URL?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() ANTHROPIC_PROMPT_CACHE?: boolean;
  @IsOptional() @Transform(emptyToUndefined) @IsString() GEMINI_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GEMINI_BASE_URL?: string;
}

/** API key and optional base URL of one model provider: the `openai`, `anthropic`, `gemini` slices. */
export interface ProviderConfig {
  apiKey?: string;
  baseUrl?: string;
}

/** The `anthropic` slice: a provider's, and whether to ask for prompt caching. */
export interface AnthropicConfig extends ProviderConfig {
  /**
   * ANTHROPIC_PROMPT_CACHE (default false): cache breakpoints on the system prompt and the
   * conversation prefix, so the next turn of a chat reads them from Anthropic's cache.
   */
  promptCache: boolean;
}

/** The three provider slices of AppConfig from validated variables. */
export function buildProvidersConfig(env: ProvidersEnvironment): {
  openai: ProviderConfig;
  anthropic: AnthropicConfig;
  gemini: ProviderConfig;
} {
  return {
    openai: { apiKey: env.OPENAI_API_KEY, baseUrl: env.OPENAI_BASE_URL },
    anthropic: {
      apiKey: env.ANTHROPIC_API_KEY,
      baseUrl: env.ANTHROPIC_BASE_URL,
      promptCache: env.ANTHROPIC_PROMPT_CACHE ?? false,
    },
    gemini: { apiKey: env.GEMINI_API_KEY, baseUrl: env.GEMINI_BASE_URL },
  };
}

const providers = (raw?: RawEnv) =>
  buildProvidersConfig(featureEnvironment(ProvidersEnvironment, raw));

/** The `openai`, `anthropic` and `gemini` namespaces, each built alone from process.env. */
export const openaiConfig = registerAs('openai', (): ProviderConfig => providers().openai);
export const anthropicConfig = registerAs(
  'anthropic',
  (): AnthropicConfig => providers().anthropic,
);
export const geminiConfig = registerAs('gemini', (): ProviderConfig => providers().gemini);
