import { type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { I18nResolver } from 'nestjs-i18n';
import { type Locale, resolveLocale } from './locale';

/**
 * nestjs-i18n's per-request language, from the same rules as every translated message
 * (`resolveLocale`), so `I18nContext` and our error messages never disagree. HTTP only.
 */
@Injectable()
export class RequestLocaleResolver implements I18nResolver {
  resolve(context: ExecutionContext): Locale | undefined {
    if (context.getType() !== 'http') return undefined;
    return resolveLocale(context.switchToHttp().getRequest<Request>());
  }
}
