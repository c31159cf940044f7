import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import Decimal from 'decimal.js';
import { readFileSync } from 'node:fs';
import { AppError } from '../common/errors/app-error';
import { ModelsErrorCode } from './models.errors';
import { sharedConfig } from '../config/shared.config';
import { DEFAULT_MODELS } from './default-models';
import { parameterRules, type ParameterRules } from './model-parameters';
import { modelsConfig } from './models.config';
import {
  type Capability,
  DEFAULT_MAX_OUTPUT_TOKENS,
  EMBEDDING_PROVIDERS,
  ModelEntry,
  type ProviderId,
} from './model-entry';

/** Spec "Model descriptor", extended form, as `GET /api/ai/models` returns it. */
export interface ModelDescriptor extends ModelEntry {
  /** False when the model's provider has no API key configured. */
  available: boolean;
  capabilities: Capability[];
  /** Most tokens generated in one reply, thinking included (the entry's, else its default). */
  maxOutputTokens: number;
  /**
   * The parameters the model accepts, with their ranges (absent: unsupported). `maxTokens.max` is
   * what the spec's routes accept: MAX_OUTPUT_TOKENS (1000 by default) within `maxReplyTokens`.
   */
  parameters: ParameterRules;
}

/** The reasoning budget held and sent for `model` (0 for a model that does not reason). */
export function reasoningBudget(model: ModelEntry): number {
  return model.capabilities?.includes('reasoning') ? (model.reasoningBudget ?? 0) : 0;
}

/** An entry's output maximum: its `maxOutputTokens`, else 4096 within its context window. */
export function maxOutputTokensOf(entry: ModelEntry): number {
  return entry.maxOutputTokens ?? Math.min(DEFAULT_MAX_OUTPUT_TOKENS, entry.maxTokens);
}

/**
 * The most visible tokens a request may ask of `model` (`maxTokens`): its output maximum less
 * the reasoning budget, which the adapters add on top of `maxTokens`.
 */
export function maxReplyTokens(model: ModelEntry): number {
  return maxOutputTokensOf(model) - reasoningBudget(model);
}

/**
 * Validates a catalogue: each entry's shape, `costPerToken > 0`, unique ids, an output maximum
 * within the context window that leaves room beyond the reasoning budget.
 * Throws an Error naming the source and every problem.
 */
export function validateCatalogue(raw: unknown, source: string): ModelEntry[] {
  if (!Array.isArray(raw) || raw.length === 0)
    throw new Error(`${source}: expected a non-empty JSON array`);
  const problems: string[] = [];
  const entries = raw.map((item: Record<string, unknown>, i) => {
    const costPerToken =
      typeof item?.costPerToken === 'number' ? String(item.costPerToken) : item?.costPerToken;
    const entry = plainToInstance(ModelEntry, { ...item, costPerToken });
    for (const e of validateSync(entry, { whitelist: true, forbidNonWhitelisted: true })) {
      problems.push(`[${i}] ${e.property}: ${Object.values(e.constraints ?? {}).join(', ')}`);
    }
    if (entry.capabilities?.includes('reasoning') && entry.reasoningBudget === undefined)
      problems.push(`[${i}] reasoningBudget: required for a reasoning model`);
    if (entry.maxOutputTokens !== undefined && entry.maxOutputTokens > entry.maxTokens)
      problems.push(`[${i}] maxOutputTokens: must not exceed maxTokens (the context window)`);
    if (
      entry.capabilities?.includes('reasoning') &&
      Number.isInteger(entry.reasoningBudget) &&
      Number.isInteger(entry.maxTokens) &&
      maxReplyTokens(entry) < 1
    )
      problems.push(`[${i}] maxOutputTokens: must exceed reasoningBudget`);
    if (entry.kind === 'embedding' && !EMBEDDING_PROVIDERS.includes(entry.providerId))
      problems.push(`[${i}] kind: ${entry.providerId} has no embeddings API`);
    if (typeof entry.costPerToken === 'string' && /^[\d.e-]+$/i.test(entry.costPerToken)) {
      if (!new Decimal(entry.costPerToken).gt(0)) problems.push(`[${i}] costPerToken: must be > 0`);
    }
    return entry;
  });
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.id)) problems.push(`duplicate model id: ${e.id}`);
    seen.add(e.id);
  }
  problems.push(...fallbackProblems(entries));
  if (problems.length)
    throw new Error(`Invalid model catalogue in ${source}:\n  ${problems.join('\n  ')}`);
  return entries;
}

/** Each entry's `fallbacks` must name other chat models of the catalogue (embeddings have none). */
function fallbackProblems(entries: ModelEntry[]): string[] {
  const chat = new Set(entries.filter((e) => (e.kind ?? 'chat') === 'chat').map((e) => e.id));
  return entries.flatMap((e) =>
    (Array.isArray(e.fallbacks) ? e.fallbacks : []).flatMap((id) =>
      id === e.id
        ? [`${e.id} fallbacks: a model cannot fall back to itself`]
        : !chat.has(id) || e.kind === 'embedding'
          ? [`${e.id} fallbacks: ${id} is not a chat model of the catalogue`]
          : [],
    ),
  );
}

/**
 * The models users may pick; a model (chat or embedding) is available when its provider's API
 * key is set, or when an upstream row serves it (setServed). `embedding` models are kept apart:
 * `list`, `find` and `require` know chat models only.
 */
@Injectable()
export class ModelCatalogue {
  private readonly keyed: Record<ProviderId, boolean>;
  private readonly models: ModelDescriptor[];
  private readonly byId: Map<string, ModelDescriptor>;
  private readonly embeddings: Map<string, ModelDescriptor>;

  constructor(
    @Inject(modelsConfig.KEY) settings: ConfigType<typeof modelsConfig>,
    @Inject(sharedConfig.KEY) shared: ConfigType<typeof sharedConfig>,
  ) {
    const { modelsFile: file, maxOutputTokens } = settings;
    const entries = file
      ? validateCatalogue(JSON.parse(readFileSync(file, 'utf8')), file)
      : DEFAULT_MODELS;
    const { providers } = shared;
    const keyed: Record<ProviderId, boolean> = {
      openai: !!providers.openai.apiKey,
      anthropic: !!providers.anthropic.apiKey,
      google: !!providers.gemini.apiKey,
    };
    this.keyed = keyed;
    const all = entries.map(({ kind, ...m }) => ({
      kind: kind ?? 'chat',
      model: {
        ...m,
        available: keyed[m.providerId],
        capabilities: m.capabilities ?? [],
        maxOutputTokens: maxOutputTokensOf(m),
        parameters: {
          ...parameterRules(m.providerId, reasoningBudget(m) > 0),
          maxTokens: { min: 1, max: Math.min(maxOutputTokens, maxReplyTokens(m)) },
        },
      },
    }));
    this.models = all.filter((e) => e.kind === 'chat').map((e) => e.model);
    this.byId = new Map(this.models.map((m) => [m.id, m]));
    this.embeddings = new Map(
      all.filter((e) => e.kind === 'embedding').map((e) => [e.model.id, e.model]),
    );
  }

  /** The `embedding` model `id` (see `available`), or undefined when there is none. */
  embeddingModel(id: string): ModelDescriptor | undefined {
    return this.embeddings.get(id);
  }

  /** Every `embedding` model of the catalogue, available or not. */
  embeddingModels(): ModelDescriptor[] {
    return [...this.embeddings.values()];
  }

  list(): ModelDescriptor[] {
    return this.models;
  }

  /**
   * The chat and embedding models that enabled upstream rows serve (the upstreams module calls
   * this after each read of its table): each is available from then on, besides those whose
   * provider has an environment key; a model no longer served and without a key is unavailable
   * again.
   */
  setServed(ids: ReadonlySet<string>): void {
    for (const m of [...this.models, ...this.embeddings.values()])
      m.available = this.keyed[m.providerId] || ids.has(m.id);
  }

  /** The available model `id`, or undefined (unknown, or its provider has no key). */
  find(id: string): ModelDescriptor | undefined {
    const model = this.byId.get(id);
    return model?.available ? model : undefined;
  }

  /** The available model `id`; throws AppError UNKNOWN_MODEL (400) otherwise. */
  require(id: string): ModelDescriptor {
    const model = this.byId.get(id);
    if (!model) throw new AppError(ModelsErrorCode.UNKNOWN_MODEL, `Unknown model: ${id}`);
    if (!model.available)
      throw new AppError(ModelsErrorCode.UNKNOWN_MODEL, `Model is not available: ${id}`);
    return model;
  }
}
