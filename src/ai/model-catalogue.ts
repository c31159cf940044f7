import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app.config';
import { AppError, ErrorCode } from '../common/errors/app-error';

export const PROVIDER_IDS = ['openai'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** Spec "Model descriptor". `costPerToken` is a decimal string so pricing stays exact. */
export interface ModelDescriptor {
  id: string;
  name: string;
  providerId: ProviderId;
  /** Context window, tokens. */
  maxTokens: number;
  /** Credits charged = ceil(tokens * costPerToken * 1000), spec Limits 1. */
  costPerToken: string;
  /** False when the model's provider has no API key configured. */
  available: boolean;
}

const DEFAULT_MODELS: Omit<ModelDescriptor, 'available'>[] = [
  {
    id: 'gpt-4o-mini',
    name: 'GPT-4o mini',
    providerId: 'openai',
    maxTokens: 128000,
    costPerToken: '0.0000006',
  },
  {
    id: 'gpt-4o',
    name: 'GPT-4o',
    providerId: 'openai',
    maxTokens: 128000,
    costPerToken: '0.00001',
  },
  {
    id: 'gpt-4.1-mini',
    name: 'GPT-4.1 mini',
    providerId: 'openai',
    maxTokens: 1047576,
    costPerToken: '0.0000016',
  },
];

/** The models users may pick; a model is available when its provider's API key is set. */
@Injectable()
export class ModelCatalogue {
  private readonly models: ModelDescriptor[];

  constructor(config: ConfigService<AppConfig, true>) {
    const configured: Record<ProviderId, boolean> = {
      openai: !!config.get('openai', { infer: true }).apiKey,
    };
    this.models = DEFAULT_MODELS.map((m) => ({ ...m, available: configured[m.providerId] }));
  }

  list(): ModelDescriptor[] {
    return this.models;
  }

  /** The available model `id`; throws AppError UNKNOWN_MODEL (400) otherwise. */
  require(id: string): ModelDescriptor {
    const model = this.models.find((m) => m.id === id);
    if (!model) throw new AppError(ErrorCode.UNKNOWN_MODEL, `Unknown model: ${id}`);
    if (!model.available)
      throw new AppError(ErrorCode.UNKNOWN_MODEL, `Model is not available: ${id}`);
    return model;
  }
}
