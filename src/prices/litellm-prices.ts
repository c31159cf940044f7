import Decimal from 'decimal.js';
import type { KindPrices, PriceKind } from './price-kinds';

/**
 * The price source's format: LiteLLM's `model_prices_and_context_window.json`, a JSON object
 * whose keys are model names (`gpt-4o-mini`, or with a provider prefix, `gemini/gemini-2.5-flash`)
 * and whose values give USD per token. The fields read, and the kind each becomes:
 *
 * | LiteLLM field                              | kind         |
 * |--------------------------------------------|--------------|
 * | `input_cost_per_token`                     | input        |
 * | `output_cost_per_token`                    | output       |
 * | `cache_read_input_token_cost`              | cachedInput  |
 * | `cache_creation_input_token_cost`          | cacheWrite5m |
 * | `cache_creation_input_token_cost_above_1hr`| cacheWrite1h |
 * | `output_cost_per_reasoning_token`          | reasoning    |
 * | `input_cost_per_image_token`               | imageInput   |
 * | `input_cost_per_audio_token`               | audioInput   |
 *
 * Every other field (context windows, per-second or per-character prices, `sample_spec`) is
 * ignored. An entry without both `input_cost_per_token` and `output_cost_per_token` (an embedding
 * model: without `input_cost_per_token`) is no price.
 */
export const LITELLM_FIELDS: Record<string, PriceKind> = {
  input_cost_per_token: 'input',
  output_cost_per_token: 'output',
  cache_read_input_token_cost: 'cachedInput',
  cache_creation_input_token_cost: 'cacheWrite5m',
  cache_creation_input_token_cost_above_1hr: 'cacheWrite1h',
  output_cost_per_reasoning_token: 'reasoning',
  input_cost_per_image_token: 'imageInput',
  input_cost_per_audio_token: 'audioInput',
};

/** The provider prefixes LiteLLM writes before a catalogue provider's model names. */
const PREFIXES: Record<string, string[]> = {
  openai: ['', 'openai/'],
  anthropic: ['', 'anthropic/'],
  google: ['gemini/', '', 'vertex_ai/'],
};

/** USD per token (a JSON number or string) → USD per million tokens, a decimal string. */
function perMillion(v: unknown): string | undefined {
  if (typeof v !== 'number' && typeof v !== 'string') return undefined;
  try {
    const d = new Decimal(String(v));
    return d.isFinite() && d.gte(0) ? d.times(1e6).toString() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The prices of catalogue model `id` (of `providerId`) in a LiteLLM price list, per million
 * tokens; undefined when the list has no priced entry for it. `embedding`: output may be absent
 * (it is then the input price).
 */
export function litellmPrices(
  list: Record<string, unknown>,
  model: { id: string; providerId: string },
  embedding = false,
): KindPrices | undefined {
  for (const prefix of PREFIXES[model.providerId] ?? ['']) {
    const entry = list[prefix + model.id];
    if (!entry || typeof entry !== 'object') continue;
    const kinds: Partial<Record<PriceKind, string>> = {};
    for (const [field, kind] of Object.entries(LITELLM_FIELDS)) {
      const p = perMillion((entry as Record<string, unknown>)[field]);
      if (p !== undefined) kinds[kind] = p;
    }
    if (kinds.input === undefined) continue;
    if (kinds.output === undefined && embedding) kinds.output = kinds.input;
    if (kinds.output === undefined) continue;
    return kinds as KindPrices;
  }
  return undefined;
}
