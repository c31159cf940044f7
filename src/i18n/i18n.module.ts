import { Module } from '@nestjs/common';
import { I18nJsonLoader, I18nModule } from 'nestjs-i18n';
import { i18nDir } from './i18n-dir';
import { RequestLocaleResolver } from './locale.resolver';
import { MessagesController } from './messages.controller';

/**
 * English and Chinese messages from `i18n/{en,zh}/*.json` (namespaces `API`, `errors`,
 * `validation`). The language of a request comes from `resolveLocale`.
 */
@Module({
  imports: [
    I18nModule.forRoot({
      fallbackLanguage: 'en',
      loader: I18nJsonLoader,
      loaderOptions: { path: i18nDir(), watch: false },
      resolvers: [RequestLocaleResolver],
      disableMiddleware: true,
      logging: false,
    }),
  ],
  controllers: [MessagesController],
})
export class AppI18nModule {}
