import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../common/errors/app-error';
import { AiErrorCode } from '../ai.errors';
import { ModelsErrorCode } from '../../models/models.errors';
import { StartupError } from '../../common/errors/startup-error';
import type { AppConfig } from '../../config/app.config';
import { CreditHoldsService } from '../../credits/credit-holds.service';
import { cost, type CreditPricing, estimateTokens } from '../../credits/pricing';
import { type ModelDescriptor, ModelCatalogue } from '../../models/model-catalogue';
import { classifyProviderError } from '../routing/provider-errors';
import { ProviderStrategy } from '../routing/provider-strategy.service';
import { type EmbedRequest, ProviderError } from '../providers/model-provider';
import { type RetryOptions, withRetry } from '../routing/retry';

/** The ledger description of every embedding charge. */
export const EMBEDDINGS_DESCRIPTION = 'embeddings';

/** One metered embedding call: who pays, and what the provider is asked. */
export interface MeteredEmbedding {
  userId: string;
  /** The API key the request came through (its daily limit applies, its id goes on the entry). */
  apiKeyId?: string;
  /** Non-empty texts, one vector each. */
  texts: string[];
  /** Vector length; undefined: the model's own. */
  dimensions?: number;
  purpose?: EmbedRequest['purpose'];
}

/** The vectors of a metered call, in input order, with the tokens and credits it was charged. */
export interface EmbeddingResult {
  vectors: number[][];
  /** Σ ceil(code points / 4) over the texts. */
  tokens: number;
  /** Credits consumed (the CONSUMPTION entry's amount, positive). */
  cost: number;
}

/**
 * Embeddings through the provider adapters, routed over the model's upstreams (RoutedEmbedder),
 * for chat search and for `/v1/embeddings`. Search uses EMBEDDINGS_MODEL, an `embedding` entry of
 * the catalogue; it is available like a chat model, while its provider has an environment key
 * or an enabled upstream row serves it (the catalogue's state, see `model` and `refresh`).
 * Without it `model` is undefined and the search methods may not be called. `/v1` names any
 * available embedding model (`requireEmbeddingModel`). Tokens of a text are the
 * spec's estimate, ceil(code points / 4), the same for every provider (Gemini reports no usage
 * for embeddings), so a charge can be computed per text and summed per payer exactly.
 */
@Injectable()
export class EmbeddingsService {
  /** EMBEDDINGS_MODEL's catalogue entry, available or not; undefined when it is unset. */
  readonly configured: ModelDescriptor | undefined;
  readonly dimensions: number;
  private readonly retry: RetryOptions;

  constructor(
    private readonly catalogue: ModelCatalogue,
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
    this.configured = model;
    this.dimensions = search.dimensions;
    const ai = config.get('ai', { infer: true });
    this.retry = { attempts: ai.retryAttempts, baseDelayMs: ai.retryBaseDelayMs };
    this.pricing = config.get('credits', { infer: true }).pricing;
  }

  /**
   * The configured embedding model while it is available (its provider's environment key, or an
   * enabled upstream row serving it, as the catalogue last learnt); undefined: semantic search
   * and indexing are off. No query: call `refresh` first where a recent answer matters.
   */
  get model(): ModelDescriptor | undefined {
    return this.configured?.available ? this.configured : undefined;
  }

  /**
   * Brings the catalogue's availability up to date with the upstream rows (a row added on
   * another instance), then answers `model`. No query while the rows' copy is recent (5 s).
   */
  async refresh(): Promise<ModelDescriptor | undefined> {
    await this.strategy.refreshUpstreams();
    return this.model;
  }

  /** CREDIT_PRICING and CREDIT_MARKUP: in `tokens` mode, input tokens at the input price. */
  private readonly pricing: CreditPricing;

  /** Tokens charged for embedding `text`: ceil(code points / 4) (spec Limits 2 estimate). */
  tokens(text: string): number {
    return estimateTokens([{ role: 'user', content: text }]);
  }

  /**
   * Credits for `tokens` input tokens at `model`'s price (default the configured one):
   * ceil(tokens × costPerToken × 1000); with CREDIT_PRICING=tokens, ceil(markup × tokens ×
   * inputPrice per 1K), `costPerToken × 1000` standing in for a missing `inputPrice`.
   */
  cost(tokens: number, model: ModelDescriptor = this.requireModel()): number {
    return cost({ promptTokens: tokens, completionTokens: 0 }, model, this.pricing);
  }

  /**
   * The available `embedding` model `id` of the catalogue, for a caller naming one. Throws
   * MODEL_CAPABILITY_MISSING (400) for a chat model, UNKNOWN_MODEL (400) otherwise (unknown, or
   * its provider has no key); both with `param: "model"`.
   */
  requireEmbeddingModel(id: string): ModelDescriptor {
    const model = this.catalogue.embeddingModel(id);
    if (model?.available) return model;
    if (this.catalogue.find(id))
      throw new AppError(
        AiErrorCode.MODEL_CAPABILITY_MISSING,
        `${id} is a chat model, not an embedding model`,
        { param: 'model' },
      );
    throw new AppError(
      ModelsErrorCode.UNKNOWN_MODEL,
      model ? `Model is not available: ${id}` : `Unknown embedding model: ${id}`,
      { param: 'model' },
    );
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
   * Embeds a search query for `userId` with the configured model, metered as `embed`. Throws
   * as `embed`.
   */
  async embedQuery(userId: string, text: string, apiKeyId?: string): Promise<number[]> {
    const { vectors } = await this.embed(this.requireModel(), {
      userId,
      apiKeyId,
      texts: [text],
      dimensions: this.dimensions,
      purpose: 'query',
    });
    return vectors[0];
  }

  /**
   * Embeds `call.texts` with `model`, metered like any model call: a hold of the exact cost
   * (Σ tokens of the texts, priced at once) through the admission statement (balance, the
   * plan's daily limit, the API key's limit), the provider call with retries, then settlement
   * with one CONSUMPTION entry "embeddings" carrying the model and prompt tokens; on failure the
   * hold is released and nothing is charged. Throws DAILY_LIMIT_REACHED or
   * KEY_DAILY_LIMIT_REACHED (429), INSUFFICIENT_CREDITS (402), or the classified provider error.
   */
  async embed(model: ModelDescriptor, call: MeteredEmbedding): Promise<EmbeddingResult> {
    const tokens = call.texts.reduce((sum, text) => sum + this.tokens(text), 0);
    const price = this.cost(tokens, model);
    const hold = await this.holds.hold(call.userId, price, randomUUID(), price, call.apiKeyId);
    let vectors: number[][];
    try {
      const embedder = this.strategy.embedderFor(model);
      vectors = await withRetry(
        () =>
          embedder.embed({
            model: model.id,
            texts: call.texts,
            dimensions: call.dimensions,
            purpose: call.purpose,
          }),
        this.retry,
      );
    } catch (err) {
      await this.holds.release(hold);
      throw err instanceof ProviderError ? classifyProviderError(err) : err;
    }
    const settled = await this.holds.settle(hold, {
      cost: price,
      description: EMBEDDINGS_DESCRIPTION,
      usage: { modelId: model.id, promptTokens: tokens, completionTokens: 0 },
    });
    return { vectors, tokens, cost: settled.charged };
  }

  private requireModel(): ModelDescriptor {
    if (!this.model) throw new Error('no embeddings model is configured');
    return this.model;
  }
}
