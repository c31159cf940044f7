import { decide } from './price-guardrails';
import { litellmPrices } from './litellm-prices';

describe('litellmPrices', () => {
  const list = {
    'claude-sonnet-4-5': {
      input_cost_per_token: 3e-6,
      output_cost_per_token: 1.5e-5,
      cache_read_input_token_cost: 3e-7,
      cache_creation_input_token_cost: 3.75e-6,
      cache_creation_input_token_cost_above_1hr: 6e-6,
      max_tokens: 64000,
      litellm_provider: 'anthropic',
    },
    'gemini/gemini-2.5-flash': { input_cost_per_token: 3e-7, output_cost_per_token: 2.5e-6 },
    'text-embedding-3-small': { input_cost_per_token: 2e-8, output_cost_per_token: 0 },
    'no-output': { input_cost_per_token: 1e-6 },
  };

  it('maps USD per token to USD per million tokens, kind by kind', () => {
    expect(litellmPrices(list, { id: 'claude-sonnet-4-5', providerId: 'anthropic' })).toEqual({
      input: '3',
      output: '15',
      cachedInput: '0.3',
      cacheWrite5m: '3.75',
      cacheWrite1h: '6',
    });
  });

  it('finds a model under its provider prefix, and no price where input or output is missing', () => {
    expect(litellmPrices(list, { id: 'gemini-2.5-flash', providerId: 'google' })).toEqual({
      input: '0.3',
      output: '2.5',
    });
    expect(
      litellmPrices(list, { id: 'text-embedding-3-small', providerId: 'openai' }, true),
    ).toEqual({
      input: '0.02',
      output: '0',
    });
    expect(litellmPrices(list, { id: 'no-output', providerId: 'openai' })).toBeUndefined();
    expect(litellmPrices(list, { id: 'absent', providerId: 'openai' })).toBeUndefined();
  });
});

describe('decide (the sync guardrails)', () => {
  const now = { input: '1', output: '4' };

  it('applies a decrease at once, and an increase up to the limit', () => {
    expect(decide(now, { input: '0.5', output: '4' }, 25)).toEqual({
      action: 'apply',
      increasePercent: '0',
    });
    expect(decide(now, { input: '1.25', output: '4' }, 25)).toEqual({
      action: 'apply',
      increasePercent: '25',
    });
  });

  it('holds an increase above the limit for an admin, whichever kind rises', () => {
    expect(decide(now, { input: '1.4', output: '4' }, 25)).toEqual({
      action: 'hold',
      increasePercent: '40',
    });
    // A new 1-hour write price of 2.5 over the 1 it fell back to: +150 %.
    expect(decide(now, { ...now, cacheWrite1h: '2.5' }, 25)).toMatchObject({ action: 'hold' });
    expect(decide({ ...now, cachedInput: '0' }, { ...now, cachedInput: '0.1' }, 25)).toMatchObject({
      action: 'hold',
    });
  });

  it('does nothing when no kind changes, and applies a first price', () => {
    expect(decide(now, { input: '1.0', output: '4', cachedInput: '1' }, 25)).toEqual({
      action: 'same',
    });
    expect(decide(undefined, now, 25)).toEqual({ action: 'apply', increasePercent: '0' });
  });
});
