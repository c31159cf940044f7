/** Page locales (spec Authentication 8): `en` (default) and `zh`. */
export const LOCALES = ['en', 'zh'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

export function isLocale(value: string): value is Locale {
  return (LOCALES as readonly string[]).includes(value);
}

/**
 * The supported locale a client prefers by its `Accept-Language` header (RFC 9110 q-values:
 * the highest q wins, ties keep header order; `q=0` means "not this one"); the default
 * without a match. Only the primary subtag counts: `zh-CN` and `zh-Hant` are `zh`.
 */
export function pickLocale(acceptLanguage: string | undefined): Locale {
  const ranges = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const quality = q ? Number(q.slice(2)) : 1;
      return {
        lang: tag.trim().toLowerCase().split('-')[0],
        quality: Number.isFinite(quality) ? quality : 0,
        index,
      };
    })
    .filter((r) => r.lang && r.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  return ranges.map((r) => r.lang).find(isLocale) ?? DEFAULT_LOCALE;
}
