/**
 * Dredd hooks of the contract run (see run.ts and dredd.yml). Every GET success answer of the
 * document is requested, signed as the admin of the fixtures, with path parameters replaced by
 * the fixtures' ids; Dredd then checks the status, and the body against the document's schema.
 * What cannot be read without more state is skipped here with its reason, so a new GET route is
 * tested by default and this list says what is not.
 */
import { readFileSync } from 'node:fs';
import type { ContractFixtures } from './fixtures';
import { toJsonSchema } from './json-schema';

interface Transaction {
  /** `<path template> > <summary> > <status> > <media type>` */
  name: string;
  fullPath: string;
  request: { method: string; uri: string; headers: Record<string, string> };
  expected: { statusCode: string; headers?: Record<string, string>; bodySchema?: object };
  real?: { headers: Record<string, string> };
  skip: boolean;
  /** Set by a hook: the transaction fails with this message. */
  fail?: string;
}
interface DreddHooks {
  beforeEach(hook: (transaction: Transaction) => void): void;
  afterEach(hook: (transaction: Transaction) => void): void;
}
interface Document {
  paths: Record<string, { get?: { responses: Record<string, Response> } }>;
  components?: { schemas?: Record<string, object> };
}
interface Response {
  content?: Record<string, { schema?: object }>;
}

// Dredd hands its hooks object to a hook file as the module `hooks`.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const hooks = require('hooks') as DreddHooks;
const { CONTRACT_FIXTURES, CONTRACT_DOCUMENT } = process.env;
if (!CONTRACT_FIXTURES || !CONTRACT_DOCUMENT)
  throw new Error('CONTRACT_FIXTURES and CONTRACT_DOCUMENT are set by `npm run test:contract`');
const fixtures = JSON.parse(CONTRACT_FIXTURES) as ContractFixtures;
const doc = JSON.parse(readFileSync(CONTRACT_DOCUMENT, 'utf8')) as Document;

/** GET routes not requested, and why. */
const SKIPPED: Record<string, string> = {
  '/api/auth/signin/google': 'a redirect to a provider that is not configured here (404)',
  '/api/auth/signin/github': 'a redirect to a provider that is not configured here (404)',
  '/api/auth/callback/google': 'needs an authorization code from the provider',
  '/api/auth/callback/github': 'needs an authorization code from the provider',
  '/uploads/{filename}': 'needs a stored file and a signed link (the file types are binary)',
  '/api/tasks/{id}': 'a task needs a scheduled workflow and a model',
  '/api/tasks/{id}/runs': 'a task needs a scheduled workflow and a model',
  '/api/tasks/{id}/runs/{runId}': 'a run needs the job queue and a model upstream',
  '/api/credits/purchases/{id}': 'a purchase needs the payment processor',
  '/api/payment/config': 'payments are not configured in this run (503 PAYMENTS_NOT_CONFIGURED)',
  '/api/billing/history': 'payments are not configured in this run (503 PAYMENTS_NOT_CONFIGURED)',
  '/v1/models/{model}': 'no provider has a key in this run, so no model is available (404)',
  '/v1/responses/{response_id}':
    'a stored response is made by a model call, and no provider has a key in this run',
  '/v1/generations/{id}':
    'a generation record is made by a model call, and no provider has a key in this run',
};

/** The fixture that fills the one path parameter of `/api/[admin/]<collection>/{…}` routes. */
const FIXTURE_OF: Record<string, keyof ContractFixtures> = {
  users: 'userId',
  teams: 'teamId',
  chats: 'chatId',
  share: 'shareToken',
  'admin/upstreams': 'upstreamId',
  'admin/prices/models': 'modelId',
  'admin/redemption-batches': 'redemptionBatchId',
};

/** Routes signed with the fixtures' API key rather than the admin's session. */
const SIGNED_WITH_KEY = new Set(['/v1/key']);

hooks.beforeEach((transaction) => {
  const { template, status, media } = partsOf(transaction);
  // run.ts hands Dredd only GET success answers; anything else is not this run's to arrange.
  if (transaction.request.method !== 'GET' || !/^2\d\d$/.test(status) || SKIPPED[template]) {
    transaction.skip = true;
    return;
  }
  if (template.includes('{')) {
    const path = fillPath(template);
    if (!path) {
      transaction.fail = `no fixture for ${template}: add one to fixtures.ts, or a reason to SKIPPED`;
      return;
    }
    const query = transaction.fullPath.includes('?')
      ? transaction.fullPath.slice(transaction.fullPath.indexOf('?'))
      : '';
    transaction.fullPath = transaction.request.uri = path + query;
  }
  const secret = SIGNED_WITH_KEY.has(template) ? fixtures.apiKey : fixtures.adminToken;
  transaction.request.headers.Authorization = `Bearer ${secret}`;
  // The body against the document's schema, not against the keys of a generated example; the
  // media type is compared in afterEach without parameters (`application/json; charset=utf-8`).
  const schema = doc.paths[template]?.get?.responses[status]?.content?.[media]?.schema;
  if (schema && media.endsWith('json'))
    transaction.expected.bodySchema = toJsonSchema(schema, doc.components?.schemas);
  delete transaction.expected.headers?.['Content-Type'];
});

hooks.afterEach((transaction) => {
  if (transaction.skip) return;
  const { media } = partsOf(transaction);
  const got = transaction.real?.headers['content-type']?.split(';')[0].trim();
  if (got !== media) transaction.fail = `Content-Type ${got ?? '(none)'}, documented ${media}`;
});

/** Path template, status and media type of a transaction, read from its name. */
function partsOf(transaction: Transaction): { template: string; status: string; media: string } {
  const [, template = '', status = '', media = ''] =
    /^(\S+) > .* > (\d{3}) > ([^>]+)$/.exec(transaction.name) ?? [];
  return { template, status, media };
}

/** `/api/chats/{id}/messages` → `/api/chats/<chatId>/messages`; undefined without a fixture. */
function fillPath(template: string): string | undefined {
  const params = template.match(/\{[^}]+\}/g) ?? [];
  const collection = /^\/api\/((?:admin\/)?(?:prices\/models|[^/]+))\/\{/.exec(template)?.[1];
  const fixture = collection ? FIXTURE_OF[collection] : undefined;
  if (params.length !== 1 || !fixture) return undefined;
  return template.replace(params[0], encodeURIComponent(fixtures[fixture]));
}
