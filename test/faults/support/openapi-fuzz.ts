import fc from 'fast-check';
import { HANDLED_EVENTS } from '../../../src/webhooks/webhooks.service';
import { signatureFor } from '../../servers/stripe-events';

/** The parts of an OpenAPI 3 document the fuzzer reads. */
export interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

interface Operation {
  parameters?: { in: 'path' | 'query' | 'header'; name: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}

export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  nullable?: boolean;
}

/** One route and method of the document. */
export interface Route {
  method: string;
  /** The templated path, e.g. `/api/chats/{id}`. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** JSON or multipart body schema, when the operation declares one. */
  body?: { type: 'json'; schema: Schema } | { type: 'multipart' };
}

/** Every route and method in the document. */
export function routesOf(doc: OpenApiDoc): Route[] {
  const routes: Route[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      const json = content['application/json']?.schema;
      routes.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        body: json
          ? { type: 'json', schema: json }
          : content['multipart/form-data']
            ? { type: 'multipart' }
            : undefined,
      });
    }
  }
  return routes;
}

/** Known-good values the generated requests mix in, so they get past the first checks. */
export interface FuzzWorld {
  /** Ids that exist (users, chats, teams, invitations) and upload file names. */
  ids: string[];
  /** Valid `Authorization` values (a user's and an admin's session). */
  bearers: string[];
  /** Valid model ids from the catalogue. */
  models: string[];
  /** Strings that mean something somewhere: invitation tokens, price ids, payment ids. */
  tokens: string[];
  webhookSecret: string;
}

/** One generated request. */
export interface FuzzRequest {
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Short description for failure messages. */
  label: string;
}

/** Printable ASCII only: the HTTP client refuses anything else in a header value. */
const printable = (maxLength = 60) =>
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    maxLength,
  });

/** Strings that have broken parsers before: traversal, bad escapes, huge, NUL, odd numbers. */
const NASTY_SEGMENTS = [
  '..',
  '.',
  '%2e%2e',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '..%5c..%5cwindows',
  '%',
  '%ZZ',
  '%E0%A4%A',
  '%C0%AE',
  '%00',
  '%F0%9F%92%A5',
  'null',
  'undefined',
  'NaN',
  '0',
  '-1',
  '1e309',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  "1'%20OR%20'1'%3D'1",
  '%5B%5D',
  '%7B%7D',
  'a'.repeat(3000),
];

const NASTY_VALUES: unknown[] = [
  null,
  '',
  ' ',
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  true,
  [],
  {},
  [[[[[]]]]],
  '\u0000',
  // Lone UTF-16 surrogates: JSON can carry them (`"\ud800"`), jsonb cannot store them.
  '\ud800',
  'a\udfffb',
  '\u202e\u200b',
  '💥'.repeat(40),
  'x'.repeat(70_000),
  { $gt: '' },
  ['a', 'b'],
  '2024-02-30T25:61:00Z',
  '<script>alert(1)</script>',
  "'; DROP TABLE users; --",
];

/** A value that is anything but what the schema wants (or sometimes exactly an edge of it). */
const weird = (): fc.Arbitrary<unknown> =>
  fc.oneof(fc.constantFrom(...NASTY_VALUES), fc.jsonValue({ maxDepth: 3 }), fc.string());

/**
 * Values that satisfy `schema` (roughly: within bounds, known ids and models where a property
 * name says so), so that mutations of them reach deep into the handler.
 */
export function validFor(
  schema: Schema,
  doc: OpenApiDoc,
  world: FuzzWorld,
  name = '',
): fc.Arbitrary<unknown> {
  if (schema.$ref) {
    const ref = schema.$ref.replace('#/components/schemas/', '');
    return validFor(doc.components.schemas[ref], doc, world, name);
  }
  const named = byName(name, world);
  if (named) return named;
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'object': {
      const props = schema.properties ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, sub] of Object.entries(props)) model[key] = validFor(sub, doc, world, key);
      // `required` may name keys without a declared schema (open objects such as UI message
      // parts); fast-check refuses those, and there is nothing to generate for them anyway.
      const requiredKeys = (schema.required ?? []).filter((k) => k in props);
      return fc.record(model, { requiredKeys });
    }
    case 'array':
      return fc.array(validFor(schema.items ?? {}, doc, world), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'number':
    case 'integer':
      return fc.oneof(
        fc.integer({ min: schema.minimum ?? -10, max: schema.maximum ?? 10_000 }),
        fc.double({
          min: schema.minimum ?? -1e6,
          max: schema.maximum ?? 1e6,
          noNaN: true,
          noDefaultInfinity: true,
        }),
      );
    case 'boolean':
      return fc.boolean();
    case 'string':
      if (schema.format === 'uuid') return fc.oneof(fc.constantFrom(...world.ids), fc.uuid());
      return fc.string({
        unit: 'grapheme',
        minLength: schema.minLength ?? 0,
        maxLength: Math.min(schema.maxLength ?? 40, 40),
      });
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Property names whose meaning the schema does not say. */
function byName(name: string, world: FuzzWorld): fc.Arbitrary<unknown> | undefined {
  switch (name) {
    case 'email':
      return fc.oneof(fc.emailAddress(), fc.constantFrom('invitee@example.com', 'ADA@EXAMPLE.COM'));
    case 'password':
      return fc.string({ unit: 'grapheme', minLength: 6, maxLength: 30 });
    case 'modelId':
      return fc.oneof(fc.constantFrom(...world.models), fc.string({ maxLength: 20 }));
    case 'models':
      // The /v1 fallback list: known ids (too many of them too), unknown ones, duplicates.
      return fc.oneof(
        fc.array(fc.constantFrom(...world.models), { maxLength: 7 }),
        fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
      );
    case 'avatar':
      return fc.oneof(
        fc.constantFrom('https://example.com/a.png', '/uploads/x.png', 'javascript:alert(1)'),
        fc.webUrl(),
      );
    case 'token':
    case 'priceId':
    case 'paymentIntentId':
      return fc.oneof(fc.constantFrom(...world.tokens), fc.string({ maxLength: 40 }));
    case 'currency':
      return fc.constantFrom('usd', 'eur', 'jpy', 'USD', 'xxx', '');
    case 'amount':
      return fc.oneof(
        fc.integer({ min: -5, max: 2000 }),
        fc.double({ min: -1, max: 2000, noNaN: true }),
        fc.constantFrom(19.99, 0.001, 1e21),
      );
    case 'credits':
      return fc.oneof(fc.integer({ min: -5, max: 300_000 }), fc.double({ noNaN: true }));
    case 'content':
      return fc.string({ unit: 'grapheme', maxLength: 200 });
    case 'role':
      return fc.constantFrom(
        'USER',
        'ADMIN',
        'OWNER',
        'MEMBER',
        'user',
        'assistant',
        'system',
        'root',
      );
    default:
      return undefined;
  }
}

/** A JSON body: valid, valid with one field broken, any JSON, or not JSON at all. */
function jsonBody(
  schema: Schema | undefined,
  doc: OpenApiDoc,
  world: FuzzWorld,
): fc.Arbitrary<Buffer> {
  const valid = schema ? validFor(schema, doc, world) : fc.jsonValue({ maxDepth: 2 });
  const mutated = fc
    .tuple(valid, fc.nat(), weird(), fc.constantFrom('replace', 'add', 'drop', 'proto'))
    .map(([v, pick, value, how]) => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return JSON.stringify(value);
      const obj = { ...(v as Record<string, unknown>) };
      const keys = Object.keys(obj);
      const key = keys.length ? keys[pick % keys.length] : 'extra';
      if (how === 'replace') obj[key] = value;
      if (how === 'add') obj[`unexpected_${pick % 3}`] = value;
      if (how === 'drop') delete obj[key];
      const text = JSON.stringify(obj);
      // "__proto__" as an own key cannot be written as an object literal; splice it in.
      return how === 'proto'
        ? text.replace(
            /^\{/,
            '{"__proto__":{"role":"ADMIN","credits":1e9},"constructor":{"prototype":{}},',
          )
        : text;
    });
  const malformed = fc.oneof(
    fc.constantFrom(
      '',
      ' ',
      '{',
      '{"a":}',
      '{"a" 1}',
      '[',
      'null',
      '"text"',
      '123',
      'true',
      '{"messages":[{"role":"user","content":"hi"}],"modelId":"gpt-4o"',
      '\uFEFF{}',
      '{"a":"\\ud800"}',
      '['.repeat(5000) + ']'.repeat(5000),
      '{"a":' + '1'.repeat(400) + '}',
      `{"a":"${'x'.repeat(1_100_000)}"}`,
    ),
    fc.string({ maxLength: 100 }),
  );
  return fc
    .oneof(
      { arbitrary: valid.map((v) => JSON.stringify(v)), weight: 3 },
      { arbitrary: mutated, weight: 4 },
      { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), weight: 1 },
      { arbitrary: malformed, weight: 2 },
    )
    .map((s) => Buffer.from(s ?? ''));
}

/** Event-shaped webhook bodies (handled types, near-valid objects naming existing users). */
function stripeEventBody(world: FuzzWorld): fc.Arbitrary<Buffer> {
  const idOr = (...known: string[]) =>
    fc.oneof(fc.constantFrom(...known), fc.string({ maxLength: 20 }));
  const object = fc.record(
    {
      id: idOr('pi_fuzz', 'sub_fuzz', 'cs_fuzz', 'ch_fuzz'),
      object: fc.constantFrom('payment_intent', 'subscription', 'checkout.session', 'charge'),
      amount: fc.oneof(fc.integer({ min: -10, max: 100_000 }), weird()),
      amount_total: fc.integer({ min: 0, max: 100_000 }),
      amount_refunded: fc.oneof(fc.integer({ min: -10, max: 100_000 }), weird()),
      currency: fc.constantFrom('usd', 'eur', 'jpy', ''),
      status: fc.constantFrom('succeeded', 'active', 'trialing', 'canceled', 'incomplete', 'bogus'),
      customer: fc.oneof(fc.constant(null), idOr('cus_fuzz')),
      subscription: fc.oneof(fc.constant(null), idOr('sub_fuzz')),
      payment_intent: fc.oneof(fc.constant(null), idOr('pi_fuzz')),
      client_reference_id: fc.oneof(fc.constant(null), fc.constantFrom(...world.ids), fc.string()),
      payment_status: fc.constantFrom('paid', 'unpaid', 'no_payment_required'),
      created: fc.integer({ min: 0, max: 2 ** 31 }),
      current_period_end: fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }), weird()),
      metadata: fc.oneof(
        weird(),
        fc.record(
          {
            userId: fc.oneof(fc.constantFrom(...world.ids), fc.string()),
            credits: fc.oneof(
              fc.constantFrom('100', '0', '-5', '1e9', '999999999', 'abc'),
              fc.string(),
            ),
            type: fc.constantFrom('credit_purchase', 'other'),
          },
          { requiredKeys: [] },
        ),
      ),
      items: fc.oneof(
        weird(),
        fc.record({
          data: fc.array(fc.record({ price: fc.record({ id: idOr(...world.tokens) }) }), {
            maxLength: 2,
          }),
        }),
      ),
    },
    { requiredKeys: [] },
  );
  return fc
    .record({
      id: fc.oneof(fc.constantFrom('evt_fuzz_1', 'evt_fuzz_2'), fc.string({ maxLength: 30 })),
      object: fc.constant('event'),
      // Every type the service acts on, plus one it only acknowledges.
      type: fc.constantFrom<string>(...HANDLED_EVENTS, 'invoice.paid'),
      created: fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }), weird()),
      data: fc.oneof(
        { arbitrary: fc.record({ object }), weight: 5 },
        { arbitrary: weird(), weight: 1 },
      ),
    })
    .map((e) => Buffer.from(JSON.stringify(e)));
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/** A multipart body for the upload route: right or wrong field, names, types and framing. */
const multipartBody = fc
  .record({
    field: fc.constantFrom('file', 'file', 'files', 'avatar', ''),
    filename: fc.oneof(
      fc.constantFrom(
        'cat.png',
        'notes.txt',
        '../../etc/passwd',
        '.htaccess',
        'a\\b.png',
        '',
        'x.svg',
        'ü照片.png',
      ),
      fc.string({ maxLength: 300 }),
    ),
    type: fc.constantFrom(
      'image/png',
      'text/plain',
      'application/octet-stream',
      'image/svg+xml',
      'text/html',
      '',
    ),
    content: fc.oneof(
      fc.constant(PNG),
      fc.uint8Array({ maxLength: 2048 }).map((a) => Buffer.from(a)),
      fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
    ),
    framing: fc.constantFrom('ok', 'ok', 'truncated', 'no-closing', 'two-files'),
  })
  .map(({ field, filename, type, content, framing }) => {
    const head = (f: string) =>
      Buffer.from(
        `--fuzzb\r\nContent-Disposition: form-data; name="${field}"; filename="${f.replace(/["\r\n]/g, '')}"\r\n` +
          (type ? `Content-Type: ${type}\r\n` : '') +
          '\r\n',
      );
    const parts = [head(filename), content, Buffer.from('\r\n')];
    if (framing === 'two-files')
      parts.push(head('second.txt'), Buffer.from('two'), Buffer.from('\r\n'));
    if (framing !== 'no-closing') parts.push(Buffer.from('--fuzzb--\r\n'));
    const body = Buffer.concat(parts);
    return framing === 'truncated' ? body.subarray(0, Math.floor(body.length / 2)) : body;
  });

/**
 * Requests for `route`: path parameters (existing ids, random UUIDs, traversal, bad escapes,
 * huge), query strings, headers (sessions valid and not, content types and encodings, language,
 * idempotency keys, webhook signatures valid and not) and bodies (see jsonBody, multipartBody).
 */
export function requestsFor(
  route: Route,
  doc: OpenApiDoc,
  world: FuzzWorld,
): fc.Arbitrary<FuzzRequest> {
  const segment = fc.oneof(
    { arbitrary: fc.constantFrom(...world.ids), weight: 3 },
    { arbitrary: fc.uuid(), weight: 1 },
    { arbitrary: fc.constantFrom(...NASTY_SEGMENTS), weight: 2 },
    {
      arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }).map(encodeURIComponent),
      weight: 2,
    },
  );
  const params = fc.tuple(...route.pathParams.map(() => segment));
  const queryValue = fc.oneof(
    fc.constantFrom(
      '1',
      '0',
      '-1',
      '100000',
      'abc',
      '',
      '1.5',
      '%',
      '/',
      '/en/admin',
      '/zh/dashboard?x=1',
    ),
    fc.string({ maxLength: 40 }).map(encodeURIComponent),
  );
  const query = fc
    .tuple(
      fc.array(
        fc.tuple(fc.constantFrom(...route.queryParams, 'limit', 'cursor', 'x'), queryValue),
        { maxLength: 3 },
      ),
      fc.constantFrom('', '', '&limit[]=1', '&cursor[a]=b', '&path=a&path=b', '&&&=&'),
    )
    .map(([pairs, extra]) => {
      const q = pairs.map(([k, v]) => `${k}=${v}`).join('&') + extra;
      return q ? `?${q}` : '';
    });
  const auth = fc.oneof(
    { arbitrary: fc.constantFrom(...world.bearers), weight: 4 },
    { arbitrary: fc.constant(undefined), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        'Bearer garbage',
        'Bearer ',
        'Basic dXNlcjpwYXNz',
        'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
        'bearer  x.y.z',
      ),
      weight: 1,
    },
    { arbitrary: printable(80), weight: 1 },
  );
  const body = route.path.includes('webhooks')
    ? fc.oneof(
        { arbitrary: stripeEventBody(world), weight: 4 },
        { arbitrary: jsonBody(undefined, doc, world), weight: 1 },
      )
    : route.body?.type === 'multipart'
      ? fc.oneof(
          { arbitrary: multipartBody, weight: 4 },
          { arbitrary: jsonBody(undefined, doc, world), weight: 1 },
        )
      : route.body
        ? jsonBody(route.body.schema, doc, world)
        : fc.oneof(
            { arbitrary: fc.constant(undefined), weight: 3 },
            { arbitrary: jsonBody(undefined, doc, world), weight: 1 },
          );
  const contentType = fc.oneof(
    {
      arbitrary: fc.constant(
        route.body?.type === 'multipart'
          ? 'multipart/form-data; boundary=fuzzb'
          : 'application/json',
      ),
      weight: 6,
    },
    {
      arbitrary: fc.constantFrom(
        'application/json; charset=utf-8',
        'application/json; charset=utf-16',
        'application/json; charset=bogus',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
        'multipart/form-data; boundary=other',
        'application/xml',
        '*/*',
        '',
      ),
      weight: 3,
    },
    { arbitrary: printable(40), weight: 1 },
  );
  const extraHeaders = fc.record(
    {
      accept: fc.constantFrom(
        'text/event-stream',
        '*/*',
        'application/json',
        'text/html',
        'x/y;q=abc',
      ),
      'accept-language': fc.oneof(
        fc.constantFrom('zh-CN', 'zh', 'en-US;q=0.1', '*', 'xx'),
        printable(30),
      ),
      'idempotency-key': fc.oneof(fc.uuid(), printable(300)),
      'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'bogus'),
      'x-forwarded-for': fc.oneof(
        fc.constantFrom('1.2.3.4', '::1', 'not-an-ip, 10.0.0.1'),
        printable(40),
      ),
      origin: fc.constantFrom('https://evil.example', 'null', 'http://localhost:3000'),
      cookie: fc.oneof(
        fc.constant(`session_token=${world.bearers[0].slice(7)}`),
        fc.constantFrom('session_token=garbage', 'session_token=', 'a=b; session_token=%E0%A4%A'),
        printable(60),
      ),
      'stripe-signature': fc.oneof(
        fc.constantFrom('t=1,v1=abc', 't=,v1=', 'garbage'),
        printable(100),
      ),
      'payment-signature': printable(60),
    },
    { requiredKeys: [] },
  );
  const signed = fc.boolean();
  return fc
    .record({ params, query, auth, body, contentType, extraHeaders, signed })
    .map(({ params, query, auth, body, contentType, extraHeaders, signed }) => {
      let path = route.path;
      route.pathParams.forEach((name, i) => (path = path.replace(`{${name}}`, params[i])));
      const headers: Record<string, string> = { ...extraHeaders };
      if (auth !== undefined) headers.authorization = auth;
      if (body !== undefined && contentType) headers['content-type'] = contentType;
      // Half of the webhook deliveries carry a valid signature for whatever body they have.
      if (signed && route.path.includes('webhook') && body !== undefined) {
        headers['stripe-signature'] = signatureFor(body.toString('utf8'), world.webhookSecret);
      }
      let shown = JSON.stringify(headers);
      world.bearers.forEach((b, i) => (shown = shown.split(b.slice(7)).join(`<session ${i}>`)));
      const label = `${route.method} ${path}${query} headers=${shown.slice(0, 400)} body=${
        body ? JSON.stringify(body.subarray(0, 300).toString('utf8')) : '(none)'
      }${body && body.length > 300 ? `…(${body.length} bytes)` : ''}`;
      return { path: path + query, headers, body, label };
    });
}
