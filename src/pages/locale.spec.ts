import { pickLocale } from './locale';

describe('pickLocale', () => {
  it('defaults to en', () => {
    expect(pickLocale(undefined)).toBe('en');
    expect(pickLocale('')).toBe('en');
    expect(pickLocale('fr-FR,de;q=0.8')).toBe('en');
  });

  it('takes the primary subtag of the preferred supported language', () => {
    expect(pickLocale('zh-CN,zh;q=0.9,en;q=0.8')).toBe('zh');
    expect(pickLocale('zh-Hant')).toBe('zh');
    expect(pickLocale('en-US,zh;q=0.5')).toBe('en');
    expect(pickLocale('fr,zh;q=0.4,en;q=0.3')).toBe('zh');
  });

  it('orders by q-value, keeps header order on ties, and skips q=0', () => {
    expect(pickLocale('en;q=0.5,zh;q=0.9')).toBe('zh');
    expect(pickLocale('zh,en')).toBe('zh');
    expect(pickLocale('zh;q=0,en;q=0.1')).toBe('en');
    expect(pickLocale('*')).toBe('en');
  });
});
