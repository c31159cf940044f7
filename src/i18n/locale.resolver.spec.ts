import type { ExecutionContext } from '@nestjs/common';
import { RequestLocaleResolver } from './locale.resolver';

const httpContext = (req: object) =>
  ({
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => req }),
  }) as unknown as ExecutionContext;

describe('RequestLocaleResolver', () => {
  const resolver = new RequestLocaleResolver();

  it('gives nestjs-i18n the language resolveLocale picks (x-locale before Accept-Language)', () => {
    const req = { headers: { 'x-locale': 'zh', 'accept-language': 'en' }, query: {}, cookies: {} };
    expect(resolver.resolve(httpContext(req))).toBe('zh');
  });

  it('falls back to en for an unsupported explicit locale', () => {
    const req = { headers: {}, query: { locale: 'fr' }, cookies: {} };
    expect(resolver.resolve(httpContext(req))).toBe('en');
  });

  it('leaves non-HTTP contexts to the fallback language', () => {
    const rpc = { getType: () => 'rpc' } as unknown as ExecutionContext;
    expect(resolver.resolve(rpc)).toBeUndefined();
  });
});
