import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { sharedConfig } from '../../config/shared.config';
import { aiConfig } from '../ai.config';
import { CreditPrices } from '../../credits/credit-prices';
import { Clock } from '../../common/clock/clock';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { embeddingGenerationOf } from './generation-record';
import { AppError } from '../../common/errors/app-error';
import { AiErrorCode } from '../ai.errors';
import { ModelsErrorCode } from '../../models/models.errors';
import { StartupError } from '../../common/errors/startup-error';
import { CreditHoldsService } from '../../credits/credit-holds.service';
import { type CreditPricing, estimateTokens } from '../../credits/pricing';
import { promptTextTokens } from '../../models/token-estimate';
import { PriceBook } from '../../prices/price-book.service';
import { chargeCredits, type Tariff } from '../../prices/tariff';
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
  /** The team whose pool pays (a team's API key); the caller must be a member (else 404). */
  teamId?: string;
  /** Non-empty texts, one vector each. */
  texts: string[];
  /** Vector length; undefined: the model's own. */
  dimensions?: number;
  purpose?: EmbedRequest['purpose'];
}

/** The vectors of a metered call, in input order, with the tokens and credits it was charged. */
export interface EmbeddingResult {
  vectors: number[][];
  /**
   * The input tokens charged: the provider's reported count, else (a provider that reports none,
   * as Gemini) Σ ceil(code points / 4) over the texts.
   */
  tokens: number;
  /** True when `tokens` is the provider's count, false when it is our estimate. */
  reported: boolean;
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
    private readonly prices: PriceBook,
    private readonly clock: Clock,
    creditPrices: CreditPrices,
    @Inject(sharedConfig.KEY) shared: ConfigType<typeof sharedConfig>,
    @Inject(aiConfig.KEY) ai: ConfigType<typeof aiConfig>,
  ) {
    const { embeddings } = shared;
    const model = embeddings.model ? catalogue.embeddingModel(embeddings.model) : undefined;
    if (embeddings.model && !model) {
      throw new StartupError(
        `EMBEDDINGS_MODEL=${embeddings.model} is not an embedding model of the catalogue (kind "embedding")`,
      );
    }
    this.configured = model;
    this.dimensions = embeddings.dimensions;
    this.retry = { attempts: ai.retryAttempts, baseDelayMs: ai.retryBaseDelayMs };
    this.pricing = creditPrices.pricing;
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
   * Credits for `tokens` input tokens at `model`'s price now (default the configured one):
   * ceil(tokens × costPerToken × 1000); with CREDIT_PRICING=tokens, ceil(markup × tokens × input
   * price per million / 1000) at the price version in force and `plan`'s markup. Throws
   * MODEL_NOT_PRICED (400) for a model without a price in tokens mode.
   */
  cost(tokens: number, model: ModelDescriptor = this.requireModel(), plan?: string): number {
    return chargeCredits({ promptTokens: tokens, completionTokens: 0 }, this.tariff(model, plan));
  }

  /** `model`'s tariff now (the Clock's), for a caller on `plan` (see PriceBook.tariff). */
  private tariff(model: ModelDescriptor, plan?: string): Tariff {
    return this.prices.tariff(model, {
      at: this.clock.now(),
      plan,
      pricing: this.pricing,
      embedding: true,
    });
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
      .embed({ model: model.id, texts, dimensions: this.dimensions, purpose: 'document', signal })
      .then((r) => r.vectors);
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
   * Embeds `call.texts` with `model`, metered like any model call, at the tariff chosen now
   * (MODEL_NOT_PRICED, 400, before anything is held or sent): a hold of the estimate's worst
   * case (promptTextTokens: ceil(ASCII / 4) plus one token per other code point, an upper bound
   * for any script) through the admission statement (balance, the plan's daily limit checked
   * against the spec estimate ceil(characters / 4), the API key's limit), the provider call with
   * retries, then settlement at the tokens the provider reported (our estimate when it reports
   * none) with one CONSUMPTION entry "embeddings" carrying the model and prompt tokens; a count
   * beyond the hold is taken from the balance as any settlement does. On failure the hold is
   * released and nothing is charged. Throws DAILY_LIMIT_REACHED or KEY_DAILY_LIMIT_REACHED
   * (429), INSUFFICIENT_CREDITS (402), or the classified provider error.
   */
  async embed(
    model: ModelDescriptor,
    call: MeteredEmbedding & { plan?: string },
  ): Promise<EmbeddingResult> {
    const tariff = this.tariff(model, call.plan);
    const startedAt = performance.now();
    const priced = (promptTokens: number) =>
      chargeCredits({ promptTokens, completionTokens: 0 }, tariff);
    const estimated = call.texts.reduce((sum, text) => sum + this.tokens(text), 0);
    const worst = promptTextTokens(call.texts.map((content) => ({ role: 'user', content })));
    const hold = await this.holds.hold(
      call.userId,
      priced(Math.max(worst, estimated)),
      randomUUID(),
      priced(estimated),
      call.apiKeyId,
      call.teamId,
    );
    let answer: Awaited<ReturnType<ReturnType<ProviderStrategy['embedderFor']>['embed']>>;
    try {
      const embedder = this.strategy.embedderFor(model);
      answer = await withRetry(
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
    const reported = answer.promptTokens !== undefined;
    const tokens = answer.promptTokens ?? estimated;
    const settled = await this.holds.settle(hold, {
      cost: priced(tokens),
      description: EMBEDDINGS_DESCRIPTION,
      usage: { modelId: model.id, promptTokens: tokens, completionTokens: 0 },
      generation: embeddingGenerationOf(hold, {
        model: model.id,
        tokens,
        reported,
        tariff,
        startedAt,
      }),
    });
    return { vectors: answer.vectors, tokens, reported, cost: settled.charged };
  }

  private requireModel(): ModelDescriptor {
    if (!this.model) throw new Error('no embeddings model is configured');
    return this.model;
  }
}
