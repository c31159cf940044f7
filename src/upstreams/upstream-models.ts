import { Injectable } from '@nestjs/common';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { ModelsErrorCode } from '../models/models.errors';
import { ModelCatalogue } from '../models/model-catalogue';
import type { ProbeKind } from './upstream-probe';
import type { UpstreamProvider } from './upstream-router.types';

const FAMILY: Record<UpstreamProvider, string> = {
  openai: 'openai',
  'openai-compatible': 'openai',
  anthropic: 'anthropic',
  google: 'google',
};

/** A test call's model: its catalogue id, provider, and whether it is a chat or embedding call. */
export interface ProbeModel {
  id: string;
  providerId: 'openai' | 'anthropic' | 'google';
  kind: ProbeKind;
}

/** The catalogue as the upstream admin routes see it: which ids exist, which one to probe. */
@Injectable()
export class UpstreamModels {
  constructor(private readonly catalogue: ModelCatalogue) {}

  /**
   * Checks an upstream's `models` and `modelMap` keys: catalogue ids (chat or embedding), of the
   * protocol's family unless the protocol is `openai-compatible`. Throws UNKNOWN_MODEL (400)
   * naming the unknown ids, VALIDATION_FAILED (400) naming the ids of another family.
   */
  check(provider: UpstreamProvider, models: string[], modelMap: Record<string, string>): void {
    const ids = [...new Set([...models, ...Object.keys(modelMap)])];
    const unknown = ids.filter((id) => !this.providerOf(id));
    if (unknown.length)
      throw new AppError(ModelsErrorCode.UNKNOWN_MODEL, `Unknown model: ${unknown.join(', ')}`);
    if (provider === 'openai-compatible') return;
    const foreign = ids.filter((id) => this.providerOf(id) !== FAMILY[provider]);
    if (foreign.length)
      throw new AppError(
        CommonErrorCode.VALIDATION_FAILED,
        `models: an ${provider} upstream cannot serve ${foreign.join(', ')}`,
      );
  }

  /**
   * The catalogue model a test call uses, and which call: the first chat model listed, else
   * (models listed, all embedding) the first embedding model listed with `kind: 'embedding'`,
   * else (none listed) the first chat model of the protocol's family; undefined when there is
   * none.
   */
  probeModel(provider: UpstreamProvider, models: string[]): ProbeModel | undefined {
    const chat = models.find((id) => this.catalogue.list().some((m) => m.id === id));
    const embedding = models.find((id) => this.catalogue.embeddingModel(id));
    const id =
      chat ??
      embedding ??
      (models.length
        ? undefined
        : this.catalogue.list().find((m) => m.providerId === FAMILY[provider])?.id);
    const providerId = id ? this.providerOf(id) : undefined;
    if (!id || !providerId) return undefined;
    return { id, providerId, kind: chat || !embedding ? 'chat' : 'embedding' };
  }

  private providerOf(id: string) {
    return (this.catalogue.list().find((m) => m.id === id) ?? this.catalogue.embeddingModel(id))
      ?.providerId;
  }
}
