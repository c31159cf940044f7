import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { envelopeFor } from '../../../src/common/envelope/envelope';

/** The parts of an OpenAPI 3.0 document the validator reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, object> };
}

interface OperationObject {
  responses?: Record<
    string,
    { description?: string; content?: Record<string, { schema?: object }> }
  >;
}

/** One HTTP answer as seen on the wire. */
export interface Answer {
  method: string;
  /** Path without the query string. */
  path: string;
  status: number;
  contentType: string | undefined;
  /** The body as received; undefined when it was not captured (aborted, or too large). */
  body: string | undefined;
  /** The client went away before the body ended: only status and content type can count. */
  aborted?: boolean;
}

/** What became of one answer. */
export type Verdict =
  | { kind: 'validated'; operation: string; problems: string[] }
  | { kind: 'unrouted'; problems: string[] }
  | { kind: 'outside-api'; reason: string };

/** The error schema of an unknown route's 404, by the envelope of its path. */
const UNROUTED_ERROR = { B: 'ErrorEnvelopeBDto', C: 'ErrorDto', openai: 'OpenAiErrorDto' };

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/**
 * Paths the API document does not describe on purpose: the HTML page routes (PagesController
 * is excluded from the document) and the Swagger UI with its JSON. Everything else must be an
 * operation of the document, or a 404 for an unknown route.
 */
export function outsideApi(method: string, path: string): string | undefined {
  if (path === '/api/docs' || path.startsWith('/api/docs')) return 'the OpenAPI page itself';
  if (method === 'OPTIONS') return 'CORS preflight';
  if (!/^\/(api|health|uploads|v1)(\/|$)/.test(path)) return 'page route (HTML, not in the API)';
  return undefined;
}

/**
 * Checks answers against the document: the path template and method must name an operation,
 * the status must be one of its responses, the content type one of that response's media
 * types, and a JSON body must match the media type's schema (ajv, OpenAPI 3.0 `nullable`,
 * formats from ajv-formats). Objects are checked closed: a field the document does not list
 * is drift too (the document would under-describe the answer). Text streams are checked by
 * status and content type, SSE bodies also by their event names (`x-sse-events`).
 */
export class ResponseValidator {
  private readonly ajv: Ajv;
  private readonly routes: { method: string; template: string; re: RegExp; params: number }[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: OpenApiDocument) {
    this.ajv = new Ajv({ allErrors: true, strict: true, discriminator: true });
    addFormats(this.ajv);
    // A binary body is never parsed as JSON; the format is only a marker.
    this.ajv.addFormat('binary', true);
    // OpenAPI annotations that are not JSON Schema validation keywords.
    this.ajv.addVocabulary(['example', 'xml', 'externalDocs', 'x-sse-events', 'x-sse-data']);
    this.ajv.addSchema({ $id: 'doc', definitions: closeObjects(rebase(doc.components?.schemas)) });
    for (const [template, item] of Object.entries(doc.paths)) {
      const names = template.match(/\{[^}]+\}/g) ?? [];
      const source = template
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
        .join('[^/]*');
      for (const method of Object.keys(item).filter((m) => METHODS.includes(m)))
        this.routes.push({
          method: method.toUpperCase(),
          template,
          // As Express routes: a trailing slash is ignored, and a parameter may be empty.
          re: new RegExp(`^${source}/?$`),
          params: names.length,
        });
    }
    // A literal segment wins over a template (`/a/b` before `/a/{id}`).
    this.routes.sort((a, b) => a.params - b.params);
  }

  /** The operation `METHOD /template` that serves `method path`, if any. */
  operationFor(method: string, path: string): { method: string; template: string } | undefined {
    const m = method === 'HEAD' ? 'GET' : method;
    return this.routes.find((r) => r.method === m && r.re.test(path));
  }

  /** Every operation of the document as `METHOD /template`. */
  operations(): string[] {
    return this.routes.map((r) => `${r.method} ${r.template}`);
  }

  check(answer: Answer): Verdict {
    const reason = outsideApi(answer.method, answer.path);
    if (reason) return { kind: 'outside-api', reason };
    const route = this.operationFor(answer.method, answer.path);
    if (!route) {
      // An unknown route: Nest's 404, in the error shape of the path's envelope.
      if (answer.status !== 404)
        return {
          kind: 'unrouted',
          problems: [`no operation ${answer.method} ${answer.path} in the document`],
        };
      const error = UNROUTED_ERROR[envelopeFor(answer.path)];
      return {
        kind: 'unrouted',
        problems: this.checkBody(answer, `unrouted ${error}`, {
          'application/json': { schema: { $ref: `#/components/schemas/${error}` } },
        }),
      };
    }
    const operation = `${route.method} ${route.template}`;
    const op = this.doc.paths[route.template][route.method.toLowerCase()];
    const response = op.responses?.[String(answer.status)];
    if (!response)
      return {
        kind: 'validated',
        operation,
        problems: [`status ${answer.status} is not documented`],
      };
    return {
      kind: 'validated',
      operation,
      problems: response.content
        ? this.checkBody(answer, `${operation} ${answer.status}`, response.content)
        : [],
    };
  }

  private checkBody(
    answer: Answer,
    key: string,
    content: Record<string, { schema?: object }>,
  ): string[] {
    const type = (answer.contentType ?? '').split(';')[0].trim().toLowerCase();
    if (!type) {
      if (answer.method === 'HEAD' || answer.aborted) return [];
      return [`no Content-Type; documented: ${Object.keys(content).join(', ')}`];
    }
    const mediaType = Object.keys(content).find(
      (m) => m === type || (m.endsWith('/*') && type.startsWith(m.slice(0, -1))) || m === '*/*',
    );
    if (!mediaType)
      return [
        `Content-Type ${type} is not documented; documented: ${Object.keys(content).join(', ')}`,
      ];
    if (answer.method === 'HEAD' || answer.aborted || answer.body === undefined) return [];
    const schema = content[mediaType].schema as SseSchema | undefined;
    if (type === 'text/event-stream') return this.sseProblems(answer.body, key, schema);
    if (type !== 'application/json' || !schema) return [];
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return [`body is not JSON: ${answer.body.slice(0, 120)}`];
    }
    const validate = this.validator(`${key} ${mediaType}`, schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) =>
        `body${e.instancePath} ${e.message}${e.params && 'additionalProperty' in e.params ? ` '${String(e.params.additionalProperty)}'` : ''}`,
    );
  }

  /**
   * Every `event:` of an SSE body must be one the document names (`x-sse-events`), its `data`
   * of that schema; frames with `data:` alone (the AI SDK's UI message stream) must match
   * `x-sse-data`, up to the closing `[DONE]`.
   */
  private sseProblems(body: string, key: string, schema: SseSchema | undefined): string[] {
    const events = schema?.['x-sse-events'];
    const dataOnly = schema?.['x-sse-data'];
    if (!events && !dataOnly)
      return ['text/event-stream schema names no events (x-sse-events) nor data (x-sse-data)'];
    const problems: string[] = [];
    for (const frame of body.split('\n\n')) {
      const name = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (name === undefined && (data === undefined || !dataOnly || data === '[DONE]')) continue;
      const label = name === undefined ? 'SSE data' : `SSE event '${name}'`;
      const dataSchema = name === undefined ? dataOnly : events?.[name];
      if (!dataSchema) {
        problems.push(`undocumented SSE event '${name}'`);
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(data ?? '');
      } catch {
        problems.push(`${label}: data is not JSON`);
        continue;
      }
      for (const p of this.problemsOf(`${key} sse ${name ?? 'data'}`, dataSchema, value))
        problems.push(`${label}: data${p}`);
    }
    return problems;
  }

  /** Problems of `value` against `schema` (a schema of the document, e.g. a request body). */
  problemsOf(key: string, schema: object, value: unknown): string[] {
    const validate = this.validator(key, schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  }

  private validator(key: string, schema: object): ValidateFunction {
    let v = this.compiled.get(key);
    if (!v) {
      v = this.ajv.compile(closeObjects(rebase(schema)));
      this.compiled.set(key, v);
    }
    return v;
  }
}

/**
 * A `text/event-stream` schema: `x-sse-events` maps each event name to its `data` schema;
 * `x-sse-data` is the schema of frames without an event name.
 */
interface SseSchema {
  'x-sse-events'?: Record<string, object>;
  'x-sse-data'?: object;
}

/** Component references as ajv resolves them: `#/components/schemas/X` → `doc#/definitions/X`. */
function rebase<T>(schema: T): T {
  return JSON.parse(
    JSON.stringify(schema ?? {}).replaceAll('"#/components/schemas/', '"doc#/definitions/'),
  ) as T;
}

/**
 * Marks every object schema that lists `properties` and says nothing of others as closed
 * (`additionalProperties: false`), so an answer cannot carry fields the document omits.
 */
function closeObjects<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(closeObjects) as T;
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'example' ? v : closeObjects(v);
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out as T;
}
