import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { envelopeFor } from '../../../src/common/envelope/envelope';
import { isAnthropicPath } from '../../../src/gateway/anthropic-error';
import { SSE_EVENTS } from '../../../src/ai/dto/stream.dto';
import { ResponseValidator } from '../../support/openapi/response-validator';
import { createTestApp, type TestApp } from '../../support/test-app';

interface Media {
  schema?: { $ref?: string; type?: string; 'x-sse-events'?: Record<string, { $ref: string }> };
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
}
interface Operation {
  summary?: string;
  parameters?: Parameter[];
  tags?: string[];
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<
    string,
    { description?: string; content?: Record<string, Media>; headers?: Record<string, unknown> }
  >;
}
interface Doc {
  tags?: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const SRC = resolve(__dirname, '..', '..', '..', 'src');
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The error body schema of each envelope (the error filter decides by path alike). */
const ERROR_SCHEMAS = {
  B: 'ErrorEnvelopeBDto',
  C: 'ErrorDto',
  openai: 'OpenAiErrorDto',
  anthropic: 'AnthropicErrorDto',
} as const;

/**
 * The document is complete enough to generate a client from: every operation of the app
 * (each carries `@Endpoint`) has its summary, tag and security, a typed body for every answer,
 * and examples on request bodies; the security it declares is the one the guard applies.
 */
describe('OpenAPI document completeness', () => {
  let t: TestApp;
  let doc: Doc;
  let ops: { method: string; path: string; op: Operation; name: string }[];

  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.http.get('/api/docs-json').expect(200)).body as Doc;
    ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, op]) => ({ method, path, op, name: `${method.toUpperCase()} ${path}` })),
    );
  });

  afterAll(() => t.close());

  it('lists every API route of the app', () => {
    expect(ops.length).toBeGreaterThanOrEqual(58);
    expect(ops.map((o) => o.name)).toEqual(
      expect.arrayContaining([
        'GET /api/credits',
        'GET /api/credits/transactions',
        'GET /api/users',
        'PUT /api/user/profile',
        'GET /api/ai/models',
        'POST /api/credits/estimate',
        'POST /api/ai/stream',
      ]),
    );
  });

  it('gives every operation a summary, a declared tag and explicit security', () => {
    const declared = new Set((doc.tags ?? []).map((tag) => tag.name));
    const problems = ops.flatMap(({ name, op }) => [
      ...(op.summary?.trim() ? [] : [`${name}: no summary`]),
      ...(op.tags?.length ? [] : [`${name}: no tag`]),
      ...(op.tags ?? []).filter((tag) => !declared.has(tag)).map((tag) => `${name}: tag ${tag}?`),
      ...(Array.isArray(op.security) ? [] : [`${name}: no security (public routes say [])`]),
    ]);
    expect(problems).toEqual([]);
  });

  it('types every answer: a schema per success body, the error schema per error status', () => {
    const problems: string[] = [];
    for (const { name, path, op } of ops) {
      const concrete = path.replace(/\{[^}]+\}/g, 'x');
      const envelope = isAnthropicPath(concrete) ? 'anthropic' : envelopeFor(concrete);
      const errorSchema = `#/components/schemas/${ERROR_SCHEMAS[envelope]}`;
      const statuses = Object.keys(op.responses).map(Number);
      if (!statuses.some((s) => s >= 200 && s < 400)) problems.push(`${name}: no success answer`);
      for (const implied of [400, 413, 500])
        if (!statuses.includes(implied)) problems.push(`${name}: ${implied} not documented`);
      for (const [status, response] of Object.entries(op.responses)) {
        const s = Number(status);
        if (!response.description) problems.push(`${name} ${status}: no description`);
        if (s >= 300 && s < 400) {
          if (!response.headers?.Location) problems.push(`${name} ${status}: no Location`);
          continue;
        }
        const content = Object.entries(response.content ?? {});
        if (!content.length) problems.push(`${name} ${status}: no body schema`);
        for (const [type, media] of content) {
          if (!media.schema) problems.push(`${name} ${status} ${type}: no schema`);
          if (s >= 400 && media.schema?.$ref !== errorSchema)
            problems.push(`${name} ${status}: error body is not ${errorSchema}`);
          if (s < 300 && type === 'application/json' && !isTyped(media.schema))
            problems.push(`${name} ${status}: untyped JSON body`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('gives every JSON request body a realistic example that matches its schema', () => {
    const validator = new ResponseValidator(doc as never);
    const problems: string[] = [];
    for (const { name, op } of ops) {
      const media = op.requestBody?.content['application/json'];
      if (!media) continue;
      const examples = [
        ...(media.example !== undefined ? [media.example] : []),
        ...Object.values(media.examples ?? {}).map((e) => e.value),
      ];
      if (!examples.length) problems.push(`${name}: request body without an example`);
      for (const example of examples)
        for (const p of validator.problemsOf(`${name} request`, media.schema ?? {}, example))
          problems.push(`${name}: example ${p}`);
    }
    expect(problems).toEqual([]);
  });

  it('gives every path parameter and required query an example (Dredd expands URLs with them)', () => {
    const problems = ops.flatMap(({ name, op }) =>
      (op.parameters ?? [])
        .filter((p) => p.in === 'path' || (p.in === 'query' && p.required))
        .flatMap((p) => {
          if (typeof p.example !== 'string' || !p.example) return [`${name}: ${p.name} no example`];
          // Ids are UUIDs (the routes parse them so), but for the payment processor's event ids.
          if ((p.name === 'id' || p.name.endsWith('Id')) && p.name !== 'eventId')
            return UUID_V4.test(p.example) ? [] : [`${name}: ${p.name} example not a UUID`];
          return [];
        }),
    );
    expect(ops.filter((o) => o.path.includes('{')).length).toBeGreaterThanOrEqual(40);
    expect(problems).toEqual([]);
  });

  it('names each documented class once: schema names are global, a clash overwrites silently', () => {
    const files = new Map<string, string[]>();
    for (const file of readdirSync(SRC, { recursive: true }) as string[]) {
      if (!file.endsWith('.ts') || file.endsWith('.spec.ts')) continue;
      const source = readFileSync(join(SRC, file), 'utf8');
      if (!source.includes("from '@nestjs/swagger'")) continue;
      for (const [, name] of source.matchAll(/^(?:export )?class (\w+)/gm))
        files.set(name, [...(files.get(name) ?? []), file]);
    }
    expect([...files].filter(([, where]) => where.length > 1)).toEqual([]);
  });

  it('documents the AI stream as text/plain and as SSE with its event names', () => {
    const ok = doc.paths['/api/ai/stream'].post.responses['200'];
    expect(Object.keys(ok.content ?? {}).sort()).toEqual(['text/event-stream', 'text/plain']);
    const sse = ok.content!['text/event-stream'].schema!;
    expect(sse['x-sse-events']).toEqual({
      delta: { $ref: '#/components/schemas/StreamDeltaDto' },
      done: { $ref: '#/components/schemas/StreamDoneDto' },
      error: { $ref: '#/components/schemas/ErrorDto' },
      tool_call: { $ref: '#/components/schemas/StreamToolCallDto' },
      tool_result: { $ref: '#/components/schemas/StreamToolResultDto' },
    });
    expect(SSE_EVENTS).toEqual(['delta', 'done', 'tool_call', 'tool_result', 'error']);
    for (const event of SSE_EVENTS)
      expect(doc.paths['/api/ai/stream'].post).toMatchObject({
        description: expect.stringContaining(`event: ${event}`),
      });
  });

  it('declares the security the guard applies: secured routes refuse no session with 401', async () => {
    const mismatches: string[] = [];
    for (const { method, path, op, name } of ops) {
      const url = path.replace(/\{[^}]+\}/g, (p) => (p === '{filename}' ? 'x.txt' : randomUUID()));
      const res = await t.http[method as 'get'](url);
      // `/v1` answers in OpenAI's shape: `{error: {code: "unauthorized"}}`; `/v1/messages*` in
      // Anthropic's: `{error: {details: {error_code: "unauthorized"}}}`.
      const wire = res.body?.error?.code ?? res.body?.error?.details?.error_code;
      const code = res.body?.code ?? wire?.toUpperCase();
      const refused = res.status === 401 && code === 'UNAUTHORIZED';
      const isPublic = op.security?.length === 0;
      if (isPublic === refused)
        mismatches.push(`${name}: ${isPublic ? 'public' : 'secured'} but answered ${res.status}`);
    }
    expect(mismatches).toEqual([]);
  });
});

/** A schema that names its shape: a reference, a type, or a choice of those (`oneOf`/`anyOf`). */
function isTyped(schema: Record<string, unknown> | undefined): boolean {
  if (!schema) return false;
  if (schema.$ref || schema.type) return true;
  const choice = (schema.oneOf ?? schema.anyOf) as Record<string, unknown>[] | undefined;
  return !!choice?.length && choice.every(isTyped);
}
