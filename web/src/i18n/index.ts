import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from './en.json';
import enPages from './en.pages.json';
import zh from './zh.json';
import zhPages from './zh.pages.json';

/** The console's languages; the first segment of every page path is one of them. */
export const LOCALES = ['en', 'zh'] as const;
export type Locale = (typeof LOCALES)[number];

/** True for `en` and `zh`. */
export const isLocale = (value: unknown): value is Locale =>
  typeof value === 'string' && (LOCALES as readonly string[]).includes(value);

/**
 * Every string of the console, in English and Chinese (the account, billing, teams and admin
 * pages in `*.pages.json`); the page's locale segment picks one.
 */
void i18n.use(initReactI18next).init({
  resources: {
    en: { translation: { ...en, ...enPages } },
    zh: { translation: { ...zh, ...zhPages } },
  },
  lng: 'en',
  fallbackLng: 'en',
  interpolation: { escapeValue: false },
});

export default i18n;
