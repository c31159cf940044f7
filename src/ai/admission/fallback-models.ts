import { AppError, CommonErrorCode } from '../../common/errors/app-error';
import { ModelsErrorCode } from '../../models/models.errors';
import { type ChatMessageInput, estimateTokens } from '../../credits/pricing';
import { estimateCredits, type Tariff, worstCaseCredits } from '../../prices/tariff';
import {
  type ModelCatalogue,
  type ModelDescriptor,
  maxReplyTokens,
  reasoningBudget,
} from '../../models/model-catalogue';
import { type Capability, MAX_FALLBACK_MODELS } from '../../models/model-entry';
import { misfit } from '../../models/model-parameters';
import { PARAMETER_NAMES, type ParameterValues } from '../../models/dto/model-parameters.dto';
import { IMAGE_TOKENS_WORST_CASE } from './image-tokens';
import { promptTokens } from './prompt-tokens';
import type { Admission } from '../ai.types';

/** What any model answering a call must take: its capabilities and its parameter values. */
export interface CallNeeds {
  capabilities: Capability[];
  /** The effective values sent (maxTokens included). */
  values: ParameterValues & { maxTokens: number };
}

/**
 * The request's own fallback list (`models` on the `/v1` wire): each id must be an available chat
 * model. Throws UNKNOWN_MODEL (400, `param: models`) for one that is not, VALIDATION_FAILED (400)
 * for more than MAX_FALLBACK_MODELS. The model the request names is left out (it is tried first).
 */
export function requestedFallbacks(
  catalogue: ModelCatalogue,
  modelId: string,
  ids: string[],
): ModelDescriptor[] {
  if (ids.length > MAX_FALLBACK_MODELS)
    throw new AppError(
      CommonErrorCode.VALIDATION_FAILED,
      `models must list at most ${MAX_FALLBACK_MODELS} models`,
      { param: 'models' },
    );
  const models = ids.map((id) => {
    const model = catalogue.find(id);
    if (!model)
      throw new AppError(ModelsErrorCode.UNKNOWN_MODEL, `Unknown model: ${id}`, {
        param: 'models',
      });
    return model;
  });
  return unique(models.filter((m) => m.id !== modelId));
}

/**
 * The models tried after `model`, in order: the request's (`requested`, see
 * requestedFallbacks) else the catalogue's `fallbacks` that are available, less those that cannot
 * serve the call: a missing capability the call needs, or a parameter value they do not take.
 */
export function fallbackModels(
  catalogue: Pick<ModelCatalogue, 'find'>,
  model: ModelDescriptor,
  requested: ModelDescriptor[] | undefined,
  needs: CallNeeds,
): ModelDescriptor[] {
  const listed =
    requested ??
    (model.fallbacks ?? []).flatMap((id) => {
      const fallback = catalogue.find(id);
      return fallback && fallback.id !== model.id ? [fallback] : [];
    });
  return unique(listed).filter((m) => canServe(m, needs));
}

/**
 * The models after `model` that may answer a call (see fallbackModels): the request's `models`
 * (`requested`, already checked) else the catalogue's, with the capabilities the call `needs`.
 */
export function fallbacksNeeding(
  catalogue: Pick<ModelCatalogue, 'find'>,
  model: ModelDescriptor,
  requested: ModelDescriptor[] | undefined,
  values: CallNeeds['values'],
  needs: Partial<Record<CallNeeds['capabilities'][number], boolean>>,
): ModelDescriptor[] {
  const capabilities = Object.entries(needs).flatMap(([c, needed]) => (needed ? [c] : []));
  return fallbackModels(catalogue, model, requested, {
    capabilities: capabilities as CallNeeds['capabilities'],
    values,
  });
}

/** True when `model` has the call's capabilities and takes each parameter value it sends. */
function canServe(model: ModelDescriptor, needs: CallNeeds): boolean {
  if (needs.capabilities.some((c) => !model.capabilities.includes(c))) return false;
  if (needs.values.maxTokens > maxReplyTokens(model)) return false;
  return PARAMETER_NAMES.every(
    (name) =>
      name === 'maxTokens' ||
      name === 'systemPrompt' ||
      needs.values[name] === undefined ||
      !misfit(model.parameters[name], needs.values[name]),
  );
}

function unique(models: ModelDescriptor[]): ModelDescriptor[] {
  const seen = new Set<string>();
  return models.filter((m) => !seen.has(m.id) && !!seen.add(m.id));
}

/** Sizes of a call that price its worst case, whichever model answers. */
export interface HoldInputs {
  /** The prompt's messages (only their text is counted: ceil(characters / 4)). */
  messages: ChatMessageInput[];
  /** Visible reply tokens asked (each model adds its own reasoning budget). */
  maxTokens: number;
  /** Number of images sent (each priced at the answering provider's worst case). */
  images: number;
  /** Prompt tokens of the client tools' JSON. */
  toolTokens: number;
}

/** The spec's tariff of `m` (every token at its costPerToken): the default where none is given. */
export const specTariff = (m: ModelDescriptor): Tariff => ({
  mode: 'spec',
  modelId: m.id,
  costPerToken: m.costPerToken,
});

/**
 * The hold and the daily-limit estimate of a call that any of `models` may answer: the largest
 * of each over the models (the worst case stays a worst case whichever model answers), each
 * model at its own tariff (`tariffOf`, chosen at admission; see prices/tariff.ts).
 */
export function worstCase(
  models: ModelDescriptor[],
  call: HoldInputs,
  tariffOf: (m: ModelDescriptor) => Tariff = specTariff,
): { amount: number; estimate: number } {
  let amount = 0;
  for (const m of models)
    amount = Math.max(
      amount,
      worstCaseCredits(
        promptTokens(call.messages, m, call),
        call.maxTokens + reasoningBudget(m),
        tariffOf(m),
      ),
    );
  return { amount, estimate: dearestEstimate(models, call, tariffOf) };
}

/**
 * The estimate before sending (spec Limits 2: ceil(characters / 4) tokens, an uncached prompt)
 * of a prompt that any of `models` may answer: the largest over them, each at its tariff, in
 * credits (0 for no models). Images count at each model's provider worst case, client tools'
 * tokens as given.
 */
export function dearestEstimate(
  models: ModelDescriptor[],
  call: Omit<HoldInputs, 'maxTokens'>,
  tariffOf: (m: ModelDescriptor) => Tariff = specTariff,
): number {
  return models.reduce(
    (most, m) =>
      Math.max(
        most,
        estimateCredits(estimateTokens(call.messages) + promptExtra(m, call), tariffOf(m)),
      ),
    0,
  );
}

/**
 * The models that may answer a prompt of `images` images and no parameter values when `model` is
 * asked, as admission lists them from the catalogue: `model`, then its available `fallbacks` that
 * can serve it (vision when there are images).
 */
export function catalogueCandidates(
  catalogue: Pick<ModelCatalogue, 'find'>,
  model: ModelDescriptor,
  images: number,
): ModelDescriptor[] {
  const needs: CallNeeds = { capabilities: images ? ['vision'] : [], values: { maxTokens: 0 } };
  return [model, ...fallbackModels(catalogue, model, undefined, needs)];
}

/** Prompt tokens the text does not show, on `m`: its provider's image worst case, the tools'. */
function promptExtra(m: ModelDescriptor, call: Omit<HoldInputs, 'maxTokens'>): number {
  return call.images * IMAGE_TOKENS_WORST_CASE[m.providerId] + call.toolTokens;
}

/**
 * The catalogue model that answered an admitted call: the fallback `modelId` names, else the
 * admitted model (also when the provider did not say).
 */
export function answeringModel(a: Admission, modelId: string | undefined): Admission['model'] {
  return (modelId && a.fallbacks.find((m) => m.id === modelId)) || a.model;
}
