import Decimal from 'decimal.js';
import type { ShownPrices } from './price-book.service';

/**
 * OpenRouter's `pricing` object from a shown price: each kind per token (per million / 10^6),
 * times the markup, as plain decimal strings (no exponent).
 */
export function openRouterPricing(shown: ShownPrices) {
  const t = (k: keyof ShownPrices['perMillion']) =>
    new Decimal(shown.perMillion[k]).times(shown.markup).div(1e6).toFixed();
  return {
    prompt: t('input'),
    completion: t('output'),
    input_cache_read: t('cachedInput'),
    input_cache_write: t('cacheWrite5m'),
    input_cache_write_1h: t('cacheWrite1h'),
    internal_reasoning: t('reasoning'),
    image: t('imageInput'),
    audio: t('audioInput'),
  };
}
