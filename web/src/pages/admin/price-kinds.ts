import type { components } from '../../api/schema';

/** A model's prices per kind of token, USD per million tokens (decimal strings). */
export type KindPrices = components['schemas']['KindPricesDto'];

/** Every kind of token a price version may state, in the order the tables show them. */
export const KINDS: (keyof KindPrices)[] = [
  'input',
  'output',
  'cachedInput',
  'cacheWrite5m',
  'cacheWrite1h',
  'reasoning',
  'imageInput',
  'audioInput',
];
