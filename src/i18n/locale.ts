import type { Request } from 'express';

export const LOCALES = ['en', 'zh'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

const supported = (v: string): Locale | undefined => {
  const base = v.trim().toLowerCase().split(/[-_]/)[0];
  return (LOCALES as readonly string[]).includes(base) ? (base as Locale) : undefined;
};

/**
 * The language of API messages, from the first source present, in this order: the body field
 * `locale`, `?locale=`, the `x-locale` header, the `NEXT_LOCALE` cookie, then the session user's
 * stored preference (`req.user.locale`, set by the JWT guard), `Accept-Language`.
 * An explicit locale outside `en`/`zh` falls back to `en`. The stored preference comes before
 * `Accept-Language` because browsers always send the latter: it is a default, not a choice.
 */
export function resolveLocale(req: Request): Locale {
  const explicit = [
    (req.body as { locale?: unknown } | undefined)?.locale,
    req.query?.locale,
    req.headers['x-locale'],
    (req.cookies as Record<string, unknown> | undefined)?.NEXT_LOCALE,
  ].find((v): v is string => typeof v === 'string' && v.length > 0);
  if (explicit !== undefined) return supported(explicit) ?? DEFAULT_LOCALE;
  const stored = (req.user as { locale?: unknown } | undefined)?.locale;
  if (typeof stored === 'string') return supported(stored) ?? DEFAULT_LOCALE;
  const accepted = req.headers['accept-language'] ? req.acceptsLanguages([...LOCALES]) : false;
  return accepted ? (accepted as Locale) : DEFAULT_LOCALE;
}
