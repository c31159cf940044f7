import { AppError } from '../common/errors/app-error';
import { ModelsErrorCode } from './models.errors';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import {
  MAX_OUTPUT_TOKENS,
  MAX_STOP_SEQUENCES,
  MAX_SYSTEM_PROMPT,
  type ModelParametersDto,
  PARAMETER_NAMES,
  type ParameterName,
  type ParameterValues,
} from './dto/model-parameters.dto';

export interface NumberRange {
  min: number;
  max: number;
}

/**
 * What a model accepts (GET /api/ai/models `parameters`). A parameter that is absent is not
 * supported by the model's provider: sending it is 400 UNSUPPORTED_PARAMETER.
 */
export interface ParameterRules {
  maxTokens: NumberRange;
  systemPrompt: { maxLength: number };
  temperature?: NumberRange;
  topP?: NumberRange;
  presencePenalty?: NumberRange;
  frequencyPenalty?: NumberRange;
  stop?: { maxItems: number };
}

const always = {
  maxTokens: { min: 1, max: MAX_OUTPUT_TOKENS },
  systemPrompt: { maxLength: MAX_SYSTEM_PROMPT },
};

/**
 * The parameters each provider's API (and its SDK in package.json) accepts:
 * - OpenAI chat completions: temperature 0–2, top_p 0–1, presence/frequency_penalty −2..2,
 *   stop ≤ 4. Reasoning models (o-series, gpt-5 and later) accept none of the sampling fields
 *   nor `stop`: only max_completion_tokens.
 * - Anthropic Messages (SDK 1.12): no temperature, top_p or penalties; stop_sequences.
 * - Gemini generateContent: temperature 0–2, topP 0–1, presence/frequencyPenalty −2..2,
 *   stopSequences ≤ 5 (our requests: ≤ 4).
 */
export function parameterRules(
  providerId: 'openai' | 'anthropic' | 'google',
  reasoning: boolean,
): ParameterRules {
  switch (providerId) {
    case 'openai':
      return reasoning
        ? { ...always }
        : {
            ...always,
            temperature: { min: 0, max: 2 },
            topP: { min: 0, max: 1 },
            presencePenalty: { min: -2, max: 2 },
            frequencyPenalty: { min: -2, max: 2 },
            stop: { maxItems: 4 },
          };
    case 'anthropic':
      return { ...always, stop: { maxItems: MAX_STOP_SEQUENCES } };
    case 'google':
      return {
        ...always,
        temperature: { min: 0, max: 2 },
        topP: { min: 0, max: 1 },
        presencePenalty: { min: -2, max: 2 },
        frequencyPenalty: { min: -2, max: 2 },
        stop: { maxItems: MAX_STOP_SEQUENCES },
      };
  }
}

/** Where an effective value came from, for error messages. */
export type ParameterSource = 'request' | 'chat' | 'preferences' | 'default';

const SOURCE_TEXT: Record<ParameterSource, string> = {
  request: 'the request',
  chat: "the chat's settings",
  preferences: 'your preferences',
  default: 'the default',
};

/** Why a value does not suit a rule: the model lacks the parameter, or the limit it breaks. */
type Misfit = { unsupported: true } | { limit: string };

/** What is wrong with `value` under `rule` (no rule: not supported); undefined when it fits. */
export function misfit(rule: ParameterRules[ParameterName], value: unknown): Misfit | undefined {
  if (!rule) return { unsupported: true };
  if ('min' in rule && typeof value === 'number' && (value < rule.min || value > rule.max))
    return { limit: `between ${rule.min} and ${rule.max}` };
  if ('maxItems' in rule && Array.isArray(value) && value.length > rule.maxItems)
    return { limit: `at most ${rule.maxItems} sequences` };
  if ('maxLength' in rule && typeof value === 'string' && value.length > rule.maxLength)
    return { limit: `at most ${rule.maxLength} characters` };
  return undefined;
}

/**
 * Checks `values` against `rules` (model `modelId`). Throws AppError UNSUPPORTED_PARAMETER (400, the
 * message names the parameter) for a parameter the model does not accept, ValidationFailedError (400,
 * naming the field, constraint `modelRange`) for a value outside the model's range. `sources`
 * says where each value came from (request, chat, preferences), for the message.
 */
export function checkParameters(
  modelId: string,
  rules: ParameterRules,
  values: ParameterValues,
  sources: Partial<Record<ParameterName, ParameterSource>> = {},
): void {
  for (const name of PARAMETER_NAMES) {
    const value = values[name];
    if (value === undefined || value === null) continue;
    const wrong = misfit(rules[name], value);
    if (!wrong) continue;
    const from = SOURCE_TEXT[sources[name] ?? 'request'];
    if ('unsupported' in wrong) {
      throw new AppError(
        ModelsErrorCode.UNSUPPORTED_PARAMETER,
        `${name} (from ${from}) is not supported by ${modelId}`,
      );
    }
    throw new ValidationFailedError([
      {
        property: name,
        constraint: 'modelRange',
        message: `${name} (from ${from}) must be ${wrong.limit} for ${modelId}`,
      },
    ]);
  }
}

/** maxTokens when no layer sets one (or the one inherited was skipped). */
const DEFAULT_MAX_TOKENS = MAX_OUTPUT_TOKENS;

/** One layer of parameters: the request, the chat's settings, or the user's preferences. */
export type ParameterLayer = ModelParametersDto | null | undefined;

export interface EffectiveParameters {
  modelId: string | undefined;
  values: ParameterValues & { maxTokens: number };
  sources: Partial<Record<ParameterName | 'modelId', ParameterSource>>;
}

/**
 * The effective model parameters, field by field: the request's value, else the chat's, else the
 * preferences', else the default (maxTokens 1000; the others unset: the model's own default).
 * `preferences` uses the preference names (`defaultModelId` is the model).
 */
export function resolveParameters(
  request: ParameterLayer,
  chat: ParameterLayer,
  preferences: (ParameterValues & { defaultModelId?: string }) | null | undefined,
): EffectiveParameters {
  const layers: [ParameterSource, ParameterLayer][] = [
    ['request', request],
    ['chat', chat],
    ['preferences', preferences ? { ...preferences, modelId: preferences.defaultModelId } : null],
  ];
  const sources: EffectiveParameters['sources'] = {};
  const pick = <K extends ParameterName | 'modelId'>(name: K) => {
    for (const [source, layer] of layers) {
      const value = layer?.[name];
      if (value !== undefined && value !== null) {
        sources[name] = source;
        return value as ModelParametersDto[K];
      }
    }
    return undefined;
  };
  const values: Record<string, unknown> = {};
  for (const name of PARAMETER_NAMES) {
    const value = pick(name);
    if (value !== undefined) values[name] = value;
  }
  if (values.maxTokens === undefined) {
    values.maxTokens = DEFAULT_MAX_TOKENS;
    sources.maxTokens = 'default';
  }
  return {
    modelId: pick('modelId'),
    values: values as EffectiveParameters['values'],
    sources,
  };
}

/** The effective parameters a model takes, and the names of the inherited ones it passed over. */
export interface FittedParameters extends EffectiveParameters {
  /** Parameters whose inherited value was skipped, in PARAMETER_NAMES order (none: `[]`). */
  skipped: ParameterName[];
}

/**
 * Fits resolved parameters (`resolveParameters`) to the chosen model (`modelId`, its `rules`).
 * A value inherited from the chat's settings or the preferences that the model does not take
 * (the parameter is not supported, or the value is outside the model's range) is skipped: the
 * parameter is left to the model's own default (maxTokens: the default 1000), not filled from a
 * lower layer, and its name is listed in `skipped`. Those values were valid where they were set,
 * for the model then in view; a request to another model should not fail for them. A value the
 * request itself sets is checked strictly: throws as `checkParameters` (400
 * UNSUPPORTED_PARAMETER, or VALIDATION_FAILED naming the field), as does an unfit default.
 */
export function fitParameters(
  modelId: string,
  rules: ParameterRules,
  effective: EffectiveParameters,
): FittedParameters {
  const values: Record<string, unknown> = { ...effective.values };
  const sources = { ...effective.sources };
  const skipped: ParameterName[] = [];
  for (const name of PARAMETER_NAMES) {
    const inherited = sources[name] === 'chat' || sources[name] === 'preferences';
    if (!inherited || !misfit(rules[name], values[name])) continue;
    delete values[name];
    delete sources[name];
    skipped.push(name);
  }
  if (values.maxTokens === undefined) {
    // The default, within the model's (or the call's) limit.
    values.maxTokens = Math.min(DEFAULT_MAX_TOKENS, rules.maxTokens.max);
    sources.maxTokens = 'default';
  }
  const fitted = values as EffectiveParameters['values'];
  checkParameters(modelId, rules, fitted, sources);
  return { modelId: effective.modelId, values: fitted, sources, skipped };
}

/** 400 naming `modelId`: no model in the request, the chat's settings or the preferences. */
export function noModelError(): ValidationFailedError {
  return new ValidationFailedError([
    {
      property: 'modelId',
      constraint: 'isDefined',
      message:
        "modelId: name a model (none in the request, the chat's settings or your preferences)",
    },
  ]);
}
