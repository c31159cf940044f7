import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import Decimal from 'decimal.js';
import type { DataSource } from 'typeorm';
import { AppError } from '../common/errors/app-error';
import type { ModelDescriptor } from '../models/model-catalogue';
import { fullPrices, type KindPrices, type PriceKind } from './price-kinds';
import { pricesConfig } from './prices.config';
import { LIST_VERSIONS_SQL } from './prices.sql';
import type { Tariff } from './tariff';
import { PricesErrorCode } from './prices.errors';

/** One version of a model's prices: in force from `effectiveAt` until the next one. */
export interface PriceVersion {
  /** The row's id; `catalogue` for the catalogue entry's own prices, `fallback` for the fallback. */
  id: string;
  modelId: string;
  effectiveAt: Date;
  /** USD per million tokens, decimal strings. */
  prices: KindPrices;
  source: 'catalogue' | 'sync' | 'admin' | 'fallback';
}

/** How a call is priced: CREDIT_PRICING's mode and CREDIT_MARKUP, the default markup. */
export interface PricingMode {
  mode: 'spec' | 'tokens';
  markup: string | number;
}

/** What the catalogue answers of a model's price now (see PriceBook.shown). */
export interface ShownPrices {
  /** The price version's id (`catalogue`, `fallback`, a stored version's uuid; `spec`). */
  version: string;
  /** The markup applied on top of these prices (the caller's plan's, else CREDIT_MARKUP). */
  markup: string;
  /** Every kind, fallbacks applied, USD per million tokens (before the markup). */
  perMillion: Record<PriceKind, string>;
}

/** Entry prices per thousand tokens (the catalogue's unit) → per million, as exact decimals. */
const perMillion = (perThousand: number) => new Decimal(String(perThousand)).times(1000).toString();

/**
 * The catalogue entry's own prices, per million: the first version of every model that states
 * `inputPrice` and `outputPrice` (an embedding model needs only `inputPrice`); undefined for a
 * model that states neither, which has no price of its own.
 */
export function cataloguePrices(model: ModelDescriptor, embedding = false): KindPrices | undefined {
  if (model.inputPrice === undefined) return undefined;
  const output = model.outputPrice ?? (embedding ? model.inputPrice : undefined);
  if (output === undefined) return undefined;
  const optional = (key: keyof KindPrices, v: number | undefined) =>
    v === undefined ? {} : { [key]: perMillion(v) };
  return {
    input: perMillion(model.inputPrice),
    output: perMillion(output),
    ...optional('cachedInput', model.cachedInputPrice),
    ...optional('cacheWrite5m', model.cacheWritePrice),
    ...optional('cacheWrite1h', model.cacheWrite1hPrice),
    ...optional('reasoning', model.reasoningPrice),
  };
}

/**
 * The price versions of every model, and the tariff a call is admitted at. The catalogue entry's
 * prices are each model's first version (in force since ever); `price_versions` rows (the sync,
 * admins) follow from their `effectiveAt`. This instance keeps a copy of the rows, read at start,
 * after each change it makes, and again when older than PRICES_REFRESH_SECONDS (`fresh`).
 */
@Injectable()
export class PriceBook implements OnModuleInit {
  /** Rows per model, oldest first. */
  private versions = new Map<string, PriceVersion[]>();
  private readAt = 0;
  private reading?: Promise<void>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(pricesConfig.KEY) private readonly config: ConfigType<typeof pricesConfig>,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.reload();
  }

  /** Reads every version again (one statement; concurrent callers share it). */
  reload(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** Reads the versions again when this copy is older than PRICES_REFRESH_SECONDS. */
  async fresh(): Promise<void> {
    if (Date.now() - this.readAt >= this.config.refreshSeconds * 1000) await this.reload();
  }

  private async read(): Promise<void> {
    const startedAt = Date.now();
    const rows: PriceVersion[] = await this.dataSource.query(LIST_VERSIONS_SQL);
    const byModel = new Map<string, PriceVersion[]>();
    for (const r of rows) {
      const v = { ...r, effectiveAt: new Date(r.effectiveAt) };
      byModel.set(r.modelId, [...(byModel.get(r.modelId) ?? []), v]);
    }
    this.versions = byModel;
    this.readAt = startedAt;
  }

  /** The model's stored versions (sync, admin), oldest first, from this instance's copy. */
  history(modelId: string): PriceVersion[] {
    return this.versions.get(modelId) ?? [];
  }

  /**
   * The version of `model`'s prices in force at `at`: the latest stored one effective by then,
   * else the catalogue entry's prices, else PRICE_FALLBACK_INPUT/OUTPUT; undefined when none.
   */
  versionAt(model: ModelDescriptor, at: Date, embedding = false): PriceVersion | undefined {
    const stored = this.history(model.id).filter((v) => v.effectiveAt <= at);
    if (stored.length) return stored[stored.length - 1];
    const own = cataloguePrices(model, embedding);
    const since = new Date(0);
    if (own)
      return {
        id: 'catalogue',
        modelId: model.id,
        effectiveAt: since,
        prices: own,
        source: 'catalogue',
      };
    const fb = this.config.fallback;
    if (fb)
      return {
        id: 'fallback',
        modelId: model.id,
        effectiveAt: since,
        prices: fb,
        source: 'fallback',
      };
    return undefined;
  }

  /** The markup of `plan`: CREDIT_MARKUP_PLANS' when it names the plan, else `defaultMarkup`. */
  markupFor(plan: string | undefined, defaultMarkup: string | number): string {
    return (plan && this.config.planMarkups[plan.toUpperCase()]) || String(defaultMarkup);
  }

  /** CREDIT_MARKUP_PLANS: the markup of each named plan. */
  planMarkups(): Record<string, string> {
    return { ...this.config.planMarkups };
  }

  /**
   * What the catalogue shows of `model`'s price now, from this instance's copy (no query): in
   * `spec` mode every kind at costPerToken (as USD per million); in `tokens` mode the version in
   * force and the plan's markup; null for a model without a price (MODEL_NOT_PRICED).
   */
  shown(
    model: ModelDescriptor,
    opts: { plan?: string; pricing: PricingMode; embedding?: boolean },
  ): ShownPrices | null {
    if (opts.pricing.mode === 'spec') {
      const each = new Decimal(model.costPerToken).times(1e6).toString();
      return {
        version: 'spec',
        markup: '1',
        perMillion: fullPrices({ input: each, output: each }),
      };
    }
    const v = this.versionAt(model, new Date(), opts.embedding);
    if (!v) return null;
    return {
      version: v.id,
      markup: this.markupFor(opts.plan, opts.pricing.markup),
      perMillion: fullPrices(v.prices),
    };
  }

  /**
   * The tariff a call of `model` is charged at, chosen at admission (`at`): in `spec` mode the
   * catalogue's costPerToken; in `tokens` mode the version in force at `at` and the plan's markup.
   * Throws AppError MODEL_NOT_PRICED (400) in `tokens` mode for a model without any price (no
   * version, no catalogue price, no fallback): it is never billed 0.
   */
  tariff(
    model: ModelDescriptor,
    opts: { at: Date; plan?: string; pricing: PricingMode; embedding?: boolean },
  ): Tariff {
    if (opts.pricing.mode === 'spec')
      return { mode: 'spec', modelId: model.id, costPerToken: model.costPerToken };
    const version = this.versionAt(model, opts.at, opts.embedding);
    if (!version)
      throw new AppError(PricesErrorCode.MODEL_NOT_PRICED, `Model has no price: ${model.id}`, {
        param: 'model',
      });
    return {
      mode: 'tokens',
      modelId: model.id,
      version: version.id,
      prices: version.prices,
      markup: this.markupFor(opts.plan, opts.pricing.markup),
    };
  }
}
