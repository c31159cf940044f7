import type { ProviderId } from '../../models/model-entry';

/**
 * Worst-case prompt tokens of one image, per provider, held before the call; the
 * charge is the provider's reported usage, which counts the image's real tokens.
 * - OpenAI (high detail): the image is fitted in 2048×2048, then its short side scaled to 768,
 *   and cut in 512-px tiles: 85 + 170 per tile; the most tiles is 2×4 (768×2048) → 1445.
 * - Anthropic: about width×height/750 tokens, images beyond ~1.15 megapixels are scaled down
 *   first, so at most about 1600.
 * - Gemini: 258 tokens per 768×768 tile (258 in all up to 384 px); at the default media
 *   resolution an image is at most 6 tiles → 1548.
 */
export const IMAGE_TOKENS_WORST_CASE: Readonly<Record<ProviderId, number>> = {
  openai: 1445,
  anthropic: 1600,
  google: 1548,
};
