import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import type { ConfigType } from '@nestjs/config';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import cookieParser from 'cookie-parser';
import helmet from 'helmet';
import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { join } from 'node:path';
import { Logger } from 'nestjs-pino';
import { envelopeFor } from './common/envelope/envelope';
import { stampArrival } from './common/http/arrival';
import { trackOutbound, watchOutboundRequests } from './common/http/outbound-failures';
import { QuietNestLogger } from './common/logging/quiet-nest-logger';
import { describeOptionalDefaults, exampleParameters } from './common/openapi/document-rules';
import { ErrorDto, ErrorEnvelopeBDto } from './common/openapi/error.dto';
import { bodyParserErrors } from './common/errors/all-exceptions.filter';
import { ErrorCatalogue } from './common/errors/error-table';
import { WireErrorFormats } from './common/errors/wire-error-formats';
import { i18nDir } from './i18n/i18n-dir';
import { appSettingsConfig } from './config/app-settings.config';

/**
 * App-level HTTP settings shared by main.ts and the e2e tests: the logger (Nest's own start-up
 * lines at debug), body limits (1 MB JSON), cookies,
 * security headers, CORS, proxy trust, the log of outbound requests the network failed, and the
 * OpenAPI page at /api/docs (JSON at /api/docs-json).
 */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const { corsOrigins, trustProxy, baseUrl } = app.get<ConfigType<typeof appSettingsConfig>>(
    appSettingsConfig.KEY,
  );
  app.useLogger(new QuietNestLogger(app.get(Logger)));
  watchOutboundRequests();
  app.use(trackOutbound);
  app.use(stampArrival);
  app.useBodyParser('json', { limit: '1mb' });
  app.useBodyParser('urlencoded', { limit: '1mb', extended: false });
  app.use(bodyParserErrors);
  app.use(cookieParser());
  // The Swagger UI needs inline scripts and styles; the API itself serves JSON only.
  app.use(helmet({ contentSecurityPolicy: false }));
  app.set('trust proxy', trustProxy);
  app.disable('x-powered-by');
  app.use(refuseForeignPreflights(new Set(corsOrigins)));
  app.enableCors({ origin: corsOrigins.length ? corsOrigins : false, credentials: true });

  const document = buildOpenApiDocument(app, baseUrl);
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
  return app;
}

/**
 * A CORS preflight (OPTIONS with `Origin` and `Access-Control-Request-Method`) from an origin
 * CORS_ORIGINS does not list is answered 403 with no body and no CORS headers, so the browser
 * refuses the request. Without it the preflight went on to the routes (a 404 while CORS is off),
 * which read as a wrong path. Preflights from listed origins go on to the cors middleware.
 */
export function refuseForeignPreflights(allowed: ReadonlySet<string>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (req.method !== 'OPTIONS' || !origin || !req.headers['access-control-request-method'])
      return next();
    if (allowed.has(origin)) return next();
    res.vary('Origin').status(403).end();
  };
}

const TAGS: [name: string, description: string][] = [
  ['auth', 'Sign-up, email and password sessions, social login'],
  ['users', 'Accounts (admin) and the own profile'],
  ['chats', 'Chats and their messages (envelope B)'],
  ['organising', 'Private chat tags, message bookmarks and public share links (envelope B)'],
  ['teams', 'Teams, members, invitations and shared chats (envelope B)'],
  ['ai', 'Models, whole and streamed replies, metered in credits'],
  ['plugins', 'Tools a model may call: built-ins and MCP servers registered by admins'],
  ['tasks', 'Scheduled tasks and workflows, their runs, metered in credits'],
  ['credits', 'Balance, daily usage, ledger and cost estimates'],
  ['generations', 'A record of every model call: models, upstreams tried, tokens, cost, timing'],
  ['api keys', 'Personal API keys for scripts and apps (`Authorization: Bearer sk-…`)'],
  [
    'budgets',
    'Spend caps per key, team member, team and user over day, week, month, session and total windows',
  ],
  ['openai-compatible', 'The OpenAI Chat Completions wire protocol under /v1, metered in credits'],
  [
    'anthropic-compatible',
    'The Anthropic Messages wire protocol under /v1/messages, metered in credits',
  ],
  ['payments', 'Subscriptions, payments, credit purchases, refunds and invoices'],
  ['webhooks', 'Events from the payment processor'],
  ['referrals', 'Referral code, link and rewards'],
  ['uploads', 'File uploads and downloads'],
  ['pages', 'Page-route decisions for frontends'],
  ['i18n', 'Localized messages'],
  ['health', 'Liveness, readiness and Prometheus metrics'],
  ['admin', 'Operations: the audit log and failed webhook events (role ADMIN)'],
];

/**
 * The OpenAPI 3 document of every controller (served at /api/docs-json). Error answers are
 * declared as ErrorDto; on envelope-B paths they become ErrorEnvelopeBDto here, and under a
 * registered wire format that format's schema (the gateway's OpenAiErrorDto under `/v1`,
 * AnthropicErrorDto under `/v1/messages`), decided by path exactly as the error filter decides
 * the body; the `ErrorCode` schema lists every code of the application. Success answers declared
 * without a description get the status' reason phrase (OpenAPI requires one). Every parameter gets an
 * example and optional properties state their default in words (`document-rules.ts`), so that
 * Dredd can expand every URL and openapi-typescript's default output compiles.
 */
export function buildOpenApiDocument(app: NestExpressApplication, baseUrl: string): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('AI chat backend')
    .setDescription(
      'Accounts, chats and credit-metered AI replies. Errors carry `error` (message) and `code`.',
    )
    .setVersion('0.1.0')
    .setLicense('UNLICENSED', 'https://spdx.org/licenses/')
    .addServer(baseUrl)
    .addBearerAuth()
    .addCookieAuth('session_token')
    // Anthropic's header for an API key, taken under /v1 (the Anthropic-compatible routes).
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key' }, 'x-api-key');
  for (const [name, description] of TAGS) builder.addTag(name, description);
  const formats = app.get(WireErrorFormats);
  const wireSchemas = formats.all.map((f) => f.schema);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    extraModels: wireSchemas,
  });
  const ref = (name: string) => `#/components/schemas/${name}`;
  const errorRef = ref(ErrorDto.name);
  for (const [path, item] of Object.entries(document.paths)) {
    const concrete = path.replace(/\{[^}]+\}/g, 'x');
    const format = formats.for(concrete);
    const envelope = envelopeFor(concrete);
    const errorShape = format
      ? ref(format.schema.name)
      : envelope === 'B'
        ? ref(ErrorEnvelopeBDto.name)
        : errorRef;
    for (const op of Object.values(item) as { responses?: Record<string, ResponseLike> }[]) {
      for (const [status, response] of Object.entries(op?.responses ?? {})) {
        // OpenAPI requires a description; a typed answer without one gets its reason phrase.
        response.description ||= STATUS_CODES[status] ?? status;
        const schema = response.content?.['application/json']?.schema;
        if (schema?.$ref === errorRef) schema.$ref = errorShape;
      }
    }
  }
  listErrorCodes(document, app.get(ErrorCatalogue).codes);
  errorSchemasFirst(document, [
    ErrorDto.name,
    ErrorEnvelopeBDto.name,
    ...wireSchemas.map((s) => s.name),
  ]);
  documentUnreachableUpstreams(document);
  exampleParameters(document);
  describeOptionalDefaults(document);
  return document;
}

/**
 * Every operation that holds credits for a model or embedding call (it documents 402
 * "Insufficient credits") can also answer 502 UPSTREAM_UNREACHABLE, when no upstream of the
 * model gave an HTTP answer; documented here once, in the 402's error shape of that path.
 */
function documentUnreachableUpstreams(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item) as { responses?: Record<string, ResponseLike> }[]) {
      const payment = op?.responses?.['402'];
      if (!payment?.description?.startsWith('Insufficient credits') || op.responses!['502'])
        continue;
      op.responses!['502'] = {
        description:
          'No upstream of the model gave an HTTP answer: connection refused, reset or timed out (`UPSTREAM_UNREACHABLE`)',
        content: payment.content,
      };
    }
  }
}

/**
 * The `ErrorCode` schema lists every code of the application (ErrorDto declares only common's),
 * in the order of the English messages (`i18n/en/errors.json`, which names every code once), so
 * the document does not depend on how the modules' tables are assembled.
 */
function listErrorCodes(document: OpenAPIObject, codes: readonly string[]): void {
  const schema = document.components?.schemas?.ErrorCode as { enum?: string[] } | undefined;
  if (!schema) return;
  const messages = readFileSync(join(i18nDir(), 'en', 'errors.json'), 'utf8');
  const order = Object.keys(JSON.parse(messages) as Record<string, string>);
  const rank = (code: string) => (order.includes(code) ? order.indexOf(code) : order.length);
  schema.enum = [...codes].sort((a, b) => rank(a) - rank(b));
}

/** A `$ref` to a schema of the document, in its JSON. */
const SCHEMA_REF = /"#\/components\/schemas\/([^"]+)"/g;

/**
 * The error schemas lead `components.schemas` (each after the schemas it references, as the
 * explorer emits them): where they appear does not depend on which controller first declares
 * them, nor on the wire formats' schemas coming in as extra models.
 */
function errorSchemasFirst(document: OpenAPIObject, names: readonly string[]): void {
  const schemas = document.components?.schemas;
  if (!schemas) return;
  const lead: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name) || !schemas[name]) return;
    seen.add(name);
    for (const [, referenced] of JSON.stringify(schemas[name]).matchAll(SCHEMA_REF))
      visit(referenced);
    lead.push(name);
  };
  names.forEach(visit);
  const rest = Object.entries(schemas).filter(([name]) => !lead.includes(name));
  document.components!.schemas = Object.fromEntries([...lead.map((n) => [n, schemas[n]]), ...rest]);
}

interface ResponseLike {
  description?: string;
  content?: Record<string, { schema?: { $ref?: string } }>;
}
