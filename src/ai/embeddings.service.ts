import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import { StartupError } from '../common/errors/startup-error';
import type { AppConfig } from '../config/app.config';
import { CreditHoldsService } from '../credits/credit-holds.service';
import { cost, estimateTokens } from '../credits/pricing';
import { type ModelDescriptor, ModelCatalogue } from '../models/model-catalogue';
import { classifyProviderError } from './provider-errors';
import { ProviderStrategy } from './provider-strategy.service';
import { ProviderError } from './providers/model-provider';
import { type RetryOptions, withRetry } from './retry';

/** The ledger description of every embedding charge. */
export const EMBEDDINGS_DESCRIPTION = 'embeddings';

/**
 * Embeddings for chat search through the provider adapters. The model is
 * EMBEDDINGS_MODEL, an `embedding` entry of the catalogue; without it (or without its
 * provider's key) `model` is undefined and nothing here may be called. Tokens of a text are the
 * spec's estimate, ceil(code points / 4), the same for every provider (Gemini reports no usage
 * for embeddings), so a charge can be computed per text and summed per payer exactly.
 */
@Injectable()
export class EmbeddingsService {
  /** The configured embedding model; undefined: semantic search is unavailable. */
  readonly model: ModelDescriptor | undefined;
  readonly dimensions: number;
  private readonly retry: RetryOptions;

  constructor(
    catalogue: ModelCatalogue,
    private readonly strategy: ProviderStrategy,
    private readonly holds: CreditHoldsService,
    config: ConfigService<AppConfig, true>,
  ) {
    const search = config.get('search', { infer: true });
    const model = search.embeddingsModel
      ? catalogue.embeddingModel(search.embeddingsModel)
      : undefined;
    if (search.embeddingsModel && !model) {
      throw new StartupError(
        `EMBEDDINGS_MODEL=${search.embeddingsModel} is not an embedding model of the catalogue (kind "embedding")`,
      );
    }
    // A model whose provider has no API key leaves semantic search off, like a chat model.
    this.model = model?.available ? model : undefined;
    this.dimensions = search.dimensions;
    const ai = config.get('ai', { infer: true });
    this.retry = { attempts: ai.retryAttempts, baseDelayMs: ai.retryBaseDelayMs };
  }

  /** Tokens charged for embedding `text`: ceil(code points / 4) (spec Limits 2 estimate). */
  tokens(text: string): number {
    return estimateTokens([{ role: 'user', content: text }]);
  }

  /** Credits for `tokens` input tokens at the model's price: ceil(tokens × costPerToken × 1000). */
  cost(tokens: number): number {
    return cost({ promptTokens: tokens, completionTokens: 0 }, this.requireModel());
  }

  /**
   * Embeds stored messages, one vector per text, in order; unmetered here: the indexer charges
   * each batch per author. Throws ProviderError (the job retries).
   */
  embedDocuments(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const model = this.requireModel();
    return this.strategy
      .embedderFor(model)
      .embed({ model: model.id, texts, dimensions: this.dimensions, purpose: 'document', signal });
  }

  /**
   * Embeds a search query for `userId`, metered like any model call: a hold of its exact cost
   * through the admission statement (balance, daily limit, API key limit), the provider call with
   * retries, then settlement with one CONSUMPTION entry "embeddings" (released on failure).
   * Throws INSUFFICIENT_CREDITS (402), DAILY_LIMIT_REACHED (429), or the classified provider
   * error.
   */
  async embedQuery(userId: string, text: string, apiKeyId?: string): Promise<number[]> {
    const model = this.requireModel();
    const tokens = this.tokens(text);
    const price = this.cost(tokens);
    const hold = await this.holds.hold(userId, price, randomUUID(), price, apiKeyId);
    let vector: number[];
    try {
      const embedder = this.strategy.embedderFor(model);
      [vector] = await withRetry(
        () =>
          embedder.embed({
            model: model.id,
            texts: [text],
            dimensions: this.dimensions,
            purpose: 'query',
          }),
        this.retry,
      );
    } catch (err) {
      await this.holds.release(hold);
      throw err instanceof ProviderError ? classifyProviderError(err) : err;
    }
    await this.holds.settle(hold, {
      cost: price,
      description: EMBEDDINGS_DESCRIPTION,
      usage: { modelId: model.id, promptTokens: tokens, completionTokens: 0 },
    });
    return vector;
  }

  private requireModel(): ModelDescriptor {
    if (!this.model) throw new Error('no embeddings model is configured');
    return this.model;
  }
}
