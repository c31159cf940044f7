import type { ModelEntry } from './model-catalogue';

/**
 * The default catalogue (MODELS_FILE replaces it). Prices are per thousand tokens in USD;
 * `costPerToken` drives the credit charge (spec Limits 1) and is a decimal string.
 */
export const DEFAULT_MODELS: ModelEntry[] = [
  {
    id: 'gpt-4o-mini',
    name: 'GPT-4o mini',
    providerId: 'openai',
    maxTokens: 128000,
    costPerToken: '0.0000006',
    description: 'Fast, inexpensive OpenAI model for everyday chat',
    inputPrice: 0.00015,
    outputPrice: 0.0006,
  },
  {
    id: 'gpt-4o',
    name: 'GPT-4o',
    providerId: 'openai',
    maxTokens: 128000,
    costPerToken: '0.00001',
    description: "OpenAI's multimodal flagship",
    inputPrice: 0.0025,
    outputPrice: 0.01,
  },
  {
    id: 'gpt-4.1-mini',
    name: 'GPT-4.1 mini',
    providerId: 'openai',
    maxTokens: 1047576,
    costPerToken: '0.0000016',
    description: 'Long-context OpenAI model',
    inputPrice: 0.0004,
    outputPrice: 0.0016,
  },
  {
    id: 'claude-sonnet-4-5',
    name: 'Claude Sonnet 4.5',
    providerId: 'anthropic',
    maxTokens: 200000,
    costPerToken: '0.000015',
    description: "Anthropic's balanced model for coding and agents",
    inputPrice: 0.003,
    outputPrice: 0.015,
  },
  {
    id: 'claude-haiku-4-5',
    name: 'Claude Haiku 4.5',
    providerId: 'anthropic',
    maxTokens: 200000,
    costPerToken: '0.000005',
    description: "Anthropic's fastest model",
    inputPrice: 0.001,
    outputPrice: 0.005,
  },
  {
    id: 'gemini-2.5-flash',
    name: 'Gemini 2.5 Flash',
    providerId: 'google',
    maxTokens: 1048576,
    costPerToken: '0.0000025',
    description: "Google's fast thinking model",
    inputPrice: 0.0003,
    outputPrice: 0.0025,
  },
  {
    id: 'gemini-2.5-pro',
    name: 'Gemini 2.5 Pro',
    providerId: 'google',
    maxTokens: 1048576,
    costPerToken: '0.00001',
    description: "Google's most capable model",
    inputPrice: 0.00125,
    outputPrice: 0.01,
  },
];
