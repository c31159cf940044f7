import {
  type Answer,
  type OpenApiDocument,
  ResponseValidator,
} from '../../support/openapi/response-validator';

const error = { $ref: '#/components/schemas/ErrorDto' };
const json = (schema: object) => ({ content: { 'application/json': { schema } } });

/** A small document in the shape @nestjs/swagger writes. */
const doc: OpenApiDocument = {
  paths: {
    '/api/things/{id}': {
      get: {
        responses: {
          200: json({ $ref: '#/components/schemas/ThingDto' }),
          404: json(error),
        },
      },
    },
    '/api/things/special': { get: { responses: { 200: json({ type: 'object' }) } } },
    '/api/stream': {
      post: {
        responses: {
          200: {
            content: {
              'text/plain': { schema: { type: 'string' } },
              'text/event-stream': {
                schema: {
                  type: 'string',
                  'x-sse-events': {
                    delta: {
                      type: 'object',
                      required: ['text'],
                      properties: { text: { type: 'string' } },
                    },
                    done: { $ref: '#/components/schemas/ErrorDto' },
                  },
                },
              },
            },
          },
        },
      },
    },
    '/api/ui-stream': {
      post: {
        responses: {
          200: {
            content: {
              'text/event-stream': {
                schema: {
                  type: 'string',
                  'x-sse-data': {
                    type: 'object',
                    required: ['type'],
                    properties: { type: { type: 'string', enum: ['text-delta'] } },
                  },
                },
              },
            },
          },
        },
      },
    },
    '/api/go': { get: { responses: { 302: { description: 'elsewhere' } } } },
  },
  components: {
    schemas: {
      ThingDto: {
        type: 'object',
        required: ['id', 'at'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          at: { type: 'string', format: 'date-time' },
          note: { type: 'string', nullable: true },
        },
      },
      ErrorDto: {
        type: 'object',
        required: ['error', 'code'],
        properties: { error: { type: 'string' }, code: { type: 'string' } },
      },
    },
  },
};

const ID = '6c1f1f9e-0a4e-4bd5-9a53-0d6f3b0d2c71';
const JSON_TYPE = 'application/json; charset=utf-8';

function problems(answer: Partial<Answer>): string[] {
  const verdict = new ResponseValidator(doc).check({
    method: 'GET',
    path: `/api/things/${ID}`,
    status: 200,
    contentType: JSON_TYPE,
    body: JSON.stringify({ id: ID, at: '2026-11-24T01:00:00.000Z', note: null }),
    ...answer,
  });
  return verdict.kind === 'outside-api' ? [`outside: ${verdict.reason}`] : verdict.problems;
}

/** The checker the e2e hook runs on every answer: each kind of drift it must catch. */
describe('OpenAPI response validator', () => {
  it('accepts an answer that matches its operation, status, media type and schema', () => {
    expect(problems({})).toEqual([]);
    expect(problems({ path: `/api/things/${ID}/` })).toEqual([]);
  });

  it('prefers a literal path over a template', () => {
    expect(problems({ path: '/api/things/special', body: '{"any": 1}' })).toEqual([]);
  });

  it('refuses an undocumented status, a wrong content type and a body off the schema', () => {
    expect(problems({ status: 409 })).toEqual(['status 409 is not documented']);
    expect(problems({ contentType: 'text/html' })).toEqual([
      'Content-Type text/html is not documented; documented: application/json',
    ]);
    expect(problems({ body: JSON.stringify({ id: 'nope', at: 'yesterday' }) })).toEqual([
      'body/id must match format "uuid"',
      'body/at must match format "date-time"',
    ]);
    expect(problems({ body: '{"id": 1' })[0]).toMatch(/^body is not JSON/);
  });

  it('treats documented objects as closed: an extra field is drift', () => {
    expect(
      problems({ body: JSON.stringify({ id: ID, at: '2026-11-24T01:00:00Z', pw: 'x' }) }),
    ).toEqual(["body must NOT have additional properties 'pw'"]);
  });

  it('checks errors against the error schema, and unknown routes only as 404s', () => {
    expect(problems({ status: 404, body: '{"error":"Not found","code":"NOT_FOUND"}' })).toEqual([]);
    expect(problems({ status: 404, body: '{"message":"Not found"}' })).toEqual([
      "body must have required property 'error'",
      "body must have required property 'code'",
      "body must NOT have additional properties 'message'",
    ]);
    expect(
      problems({ path: '/api/nowhere', status: 404, body: '{"error":"x","code":"NOT_FOUND"}' }),
    ).toEqual([]);
    expect(problems({ path: '/api/nowhere', status: 200 })).toEqual([
      'no operation GET /api/nowhere in the document',
    ]);
    expect(problems({ method: 'DELETE', status: 200 })).toEqual([
      `no operation DELETE /api/things/${ID} in the document`,
    ]);
  });

  it('checks streams by media type, and SSE bodies by event name and data schema', () => {
    const stream = { method: 'POST', path: '/api/stream' };
    expect(problems({ ...stream, contentType: 'text/plain; charset=utf-8', body: 'Hi' })).toEqual(
      [],
    );
    expect(
      problems({
        ...stream,
        contentType: 'text/event-stream',
        body:
          ': ping\n\nevent: delta\ndata: {"text":"Hi"}\n\nevent: delta\ndata: {"txt":1}\n\n' +
          'event: oops\ndata: {}\n\nevent: done\ndata: {"error":"x","code":"Y"}\n\n',
      }),
    ).toEqual([
      "SSE event 'delta': data/ must have required property 'text'",
      "SSE event 'delta': data/ must NOT have additional properties",
      "undocumented SSE event 'oops'",
    ]);
    expect(
      problems({ ...stream, contentType: 'application/octet-stream', body: '', aborted: true }),
    ).toEqual([
      'Content-Type application/octet-stream is not documented; documented: text/plain, text/event-stream',
    ]);
  });

  it('checks data-only SSE frames (the AI SDK UI message stream) against x-sse-data', () => {
    const ui = { method: 'POST', path: '/api/ui-stream', contentType: 'text/event-stream' };
    expect(
      problems({ ...ui, body: 'data: {"type":"text-delta"}\n\n: keep-alive\n\ndata: [DONE]\n\n' }),
    ).toEqual([]);
    expect(
      problems({
        ...ui,
        body: 'data: {"type":"oops"}\n\ndata: {"type":"text-delta","x":1}\n\ndata: nope\n\n',
      }),
    ).toEqual([
      'SSE data: data/type must be equal to one of the allowed values',
      'SSE data: data/ must NOT have additional properties',
      'SSE data: data is not JSON',
    ]);
  });

  it('leaves pages, the OpenAPI page and preflights to other tests', () => {
    expect(problems({ path: '/en/dashboard', contentType: 'text/html' })).toEqual([
      'outside: page route (HTML, not in the API)',
    ]);
    expect(problems({ path: '/api/docs-json' })).toEqual(['outside: the OpenAPI page itself']);
    expect(problems({ method: 'OPTIONS', status: 204 })).toEqual(['outside: CORS preflight']);
  });

  it('accepts a redirect documented without a body', () => {
    expect(
      problems({ path: '/api/go', status: 302, contentType: 'text/plain', body: 'Found' }),
    ).toEqual([]);
  });
});
