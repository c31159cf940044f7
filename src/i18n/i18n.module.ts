import { Module, type Provider } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { I18nJsonLoader, I18nModule } from 'nestjs-i18n';
import { i18nDir } from './i18n-dir';
import { RequestLocaleResolver } from './locale.resolver';
import { MessagesController } from './messages.controller';

const i18n = I18nModule.forRoot({
  fallbackLanguage: 'en',
  loader: I18nJsonLoader,
  loaderOptions: { path: i18nDir(), watch: false },
  // The same rules as every translated message; for code that asks nestjs-i18n for a request's
  // language (and without a resolver the library logs a notice at start-up).
  resolvers: [RequestLocaleResolver],
  disableMiddleware: true,
  logging: false,
});
// nestjs-i18n also registers a global interceptor that resolves the language and opens an
// I18nContext (AsyncLocalStorage) around every request. Nothing here reads that context: the
// error presenter resolves the request's language itself (`resolveLocale`) when, and only when,
// it translates a failure. So successful requests skip that work.
i18n.providers = i18n.providers?.filter(
  (p: Provider) => !(typeof p === 'object' && 'provide' in p && p.provide === APP_INTERCEPTOR),
);

/**
 * English and Chinese messages from `i18n/{en,zh}/*.json` (namespaces `API`, `errors`,
 * `validation`), translated with `I18nService.t` in the language `resolveLocale` picks.
 */
@Module({
  imports: [i18n],
  controllers: [MessagesController],
})
export class AppI18nModule {}
