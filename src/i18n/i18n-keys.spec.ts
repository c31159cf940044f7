import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { i18nDir } from './i18n-dir';
import { LOCALES } from './locale';

const dir = i18nDir();
const load = (locale: string, file: string) =>
  JSON.parse(readFileSync(join(dir, locale, file), 'utf8')) as Record<string, string>;

describe('translations', () => {
  const files = readdirSync(join(dir, 'en')).sort();

  it('have the same files in every locale', () => {
    for (const locale of LOCALES) expect(readdirSync(join(dir, locale)).sort()).toEqual(files);
  });

  it.each(files)('%s has the same keys in en and zh, none empty', (file) => {
    const en = load('en', file);
    const zh = load('zh', file);
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    for (const v of [...Object.values(en), ...Object.values(zh)]) expect(v.trim()).not.toBe('');
  });

  it('have the spec namespace API with keys success and error', () => {
    expect(Object.keys(load('zh', 'API.json')).sort()).toEqual(['error', 'success']);
  });
});
