import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigService } from '@nestjs/config';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import cookieParser from 'cookie-parser';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { stampArrival } from './common/http/arrival';
import { bodyParserErrors } from './common/errors/all-exceptions.filter';
import type { AppConfig } from './config/app.config';

/**
 * App-level HTTP settings shared by main.ts and the e2e tests: body limits (1 MB JSON), cookies,
 * security headers, CORS, proxy trust and the OpenAPI page at /api/docs (JSON at /api/docs-json).
 */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get(ConfigService<AppConfig, true>);
  const { corsOrigins, trustProxy, baseUrl } = config.get('app', { infer: true });
  app.useLogger(app.get(Logger));
  app.use(stampArrival);
  app.useBodyParser('json', { limit: '1mb' });
  app.useBodyParser('urlencoded', { limit: '1mb', extended: false });
  app.use(bodyParserErrors);
  app.use(cookieParser());
  // The Swagger UI needs inline scripts and styles; the API itself serves JSON only.
  app.use(helmet({ contentSecurityPolicy: false }));
  app.set('trust proxy', trustProxy);
  app.disable('x-powered-by');
  app.enableCors({ origin: corsOrigins.length ? corsOrigins : false, credentials: true });

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('AI chat backend')
      .setDescription(
        'Accounts, chats and credit-metered AI replies. Errors carry `error` (message) and `code`.',
      )
      .setVersion('0.1.0')
      .addServer(baseUrl)
      .addBearerAuth()
      .addCookieAuth('session_token')
      .build(),
  );
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
  return app;
}
