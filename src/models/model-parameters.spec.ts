import { AppError } from '../common/errors/app-error';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import {
  checkParameters,
  fitParameters,
  parameterRules,
  resolveParameters,
} from './model-parameters';

describe('resolveParameters (request > chat > preferences > default)', () => {
  it('takes each field from the request, else the chat, else the preferences, else the default', () => {
    const r = resolveParameters(
      { topP: 0.1 },
      { modelId: 'chat-model', temperature: 0.2, topP: 0.9 },
      { defaultModelId: 'pref-model', temperature: 0.3, maxTokens: 300, systemPrompt: 'P' },
    );
    expect(r.modelId).toBe('chat-model');
    expect(r.values).toEqual({ topP: 0.1, temperature: 0.2, maxTokens: 300, systemPrompt: 'P' });
    expect(r.sources).toEqual({
      modelId: 'chat',
      topP: 'request',
      temperature: 'chat',
      maxTokens: 'preferences',
      systemPrompt: 'preferences',
    });
  });

  it('defaults maxTokens to 1000 and leaves the rest unset; no model anywhere is undefined', () => {
    const r = resolveParameters({}, null, null);
    expect(r).toEqual({
      modelId: undefined,
      values: { maxTokens: 1000 },
      sources: { maxTokens: 'default' },
    });
  });

  it('treats null as unset (a cleared preference does not hide a lower layer)', () => {
    const chat = { temperature: null as unknown as number };
    expect(resolveParameters({}, chat, { temperature: 0.5 }).values.temperature).toBe(0.5);
  });
});

describe('checkParameters', () => {
  const openai = parameterRules('openai', false);
  it('accepts values inside the ranges', () => {
    expect(() =>
      checkParameters('m', openai, { temperature: 2, topP: 0, presencePenalty: -2, stop: ['a'] }),
    ).not.toThrow();
  });

  it('refuses what the provider lacks with UNSUPPORTED_PARAMETER, naming the source', () => {
    const anthropic = parameterRules('anthropic', false);
    const err = (() => {
      try {
        checkParameters(
          'claude',
          anthropic,
          { frequencyPenalty: 1 },
          { frequencyPenalty: 'preferences' },
        );
      } catch (e) {
        return e;
      }
    })() as AppError;
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('UNSUPPORTED_PARAMETER');
    expect(err.message).toBe('frequencyPenalty (from your preferences) is not supported by claude');
    // Reasoning OpenAI models take no sampling field at all.
    expect(() => checkParameters('o', parameterRules('openai', true), { topP: 1 })).toThrow(
      AppError,
    );
  });

  it('refuses a value out of the model range with VALIDATION_FAILED naming the field', () => {
    const tight = { ...openai, temperature: { min: 0, max: 1 } };
    expect(() => checkParameters('m', tight, { temperature: 1.5 })).toThrow(ValidationFailedError);
    expect(() => checkParameters('m', tight, { temperature: 1.5 })).toThrow(
      'temperature (from the request) must be between 0 and 1 for m',
    );
  });
});

describe('fitParameters (inherited values a model does not take are skipped)', () => {
  const anthropic = parameterRules('anthropic', false);
  const claude = (request: object, chat: object | null, prefs: object | null) =>
    fitParameters('claude', anthropic, resolveParameters(request, chat, prefs));

  it('skips an unsupported parameter from the preferences or the chat, keeping the rest', () => {
    const r = claude({}, { topP: 0.5, stop: ['##'] }, { temperature: 0.9, maxTokens: 200 });
    expect(r.skipped).toEqual(['temperature', 'topP']);
    expect(r.values).toEqual({ stop: ['##'], maxTokens: 200 });
    expect(r.sources).toEqual({ stop: 'chat', maxTokens: 'preferences' });
  });

  it('does not fill a skipped parameter from a lower layer', () => {
    const tight = { ...parameterRules('openai', false), temperature: { min: 0, max: 1 } };
    const r = fitParameters(
      'm',
      tight,
      resolveParameters({}, { temperature: 1.5 }, { temperature: 0.5 }),
    );
    expect(r.skipped).toEqual(['temperature']);
    expect(r.values).toEqual({ maxTokens: 1000 });
  });

  it('skips an inherited value out of the model range (stop sequences over its limit)', () => {
    const two = { ...anthropic, stop: { maxItems: 2 } };
    const r = fitParameters('c', two, resolveParameters({}, null, { stop: ['a', 'b', 'c'] }));
    expect(r.skipped).toEqual(['stop']);
    expect(r.values).toEqual({ maxTokens: 1000 });
    expect(r.sources).toEqual({ maxTokens: 'default' });
  });

  it('skips an inherited maxTokens above the limit and falls back to the default within it', () => {
    const small = { ...parameterRules('openai', false), maxTokens: { min: 1, max: 600 } };
    const r = fitParameters('m', small, resolveParameters({}, { maxTokens: 900 }, null));
    expect(r.skipped).toEqual(['maxTokens']);
    expect(r.values).toEqual({ maxTokens: 600 });
    expect(r.sources).toEqual({ maxTokens: 'default' });
  });

  it('keeps refusing what the request itself sets, also when a layer below sets it too', () => {
    expect(() => claude({ temperature: 0.5 }, null, { temperature: 0.9 })).toThrow(
      'temperature (from the request) is not supported by claude',
    );
    const tight = { ...parameterRules('openai', false), topP: { min: 0, max: 0.5 } };
    expect(() => fitParameters('m', tight, resolveParameters({ topP: 0.9 }, null, null))).toThrow(
      ValidationFailedError,
    );
  });

  it('passes inherited values a model takes, and skips nothing', () => {
    const r = fitParameters(
      'gpt',
      parameterRules('openai', false),
      resolveParameters({}, { temperature: 0.2 }, { temperature: 0.9, topP: 0.3 }),
    );
    expect(r.skipped).toEqual([]);
    expect(r.values).toEqual({ temperature: 0.2, topP: 0.3, maxTokens: 1000 });
  });
});
