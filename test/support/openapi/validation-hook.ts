import type { NextFunction, Request, Response } from 'express';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Answer,
  type OpenApiDocument,
  outsideApi,
  ResponseValidator,
} from './response-validator';

/** Bodies above this are checked by status and content type only (large downloads). */
const MAX_CAPTURE_BYTES = 1024 * 1024;

/** One answer that does not match the document. */
export interface Drift {
  test: string | undefined;
  request: string;
  problems: string[];
}

/** Counts of one test file's answers, by what the check could look at. */
export interface ValidationStats {
  /** Status, content type and the whole body checked against the document. */
  validated: number;
  /** Status and content type only: aborted or oversized bodies. */
  statusOnly: number;
  /** Unknown routes: 404 checked against the error schema. */
  unrouted: number;
  /** Page routes, the OpenAPI page, CORS preflights: not API operations. */
  outsideApi: number;
  /** The client went away before any status was sent. */
  unanswered: number;
  /** `METHOD /template` of each operation exercised at least once. */
  operations: string[];
  /** `METHOD /template` of every operation of the document. */
  documented: string[];
}

const stats = { validated: 0, statusOnly: 0, unrouted: 0, outsideApi: 0, unanswered: 0 };
const operations = new Set<string>();
const documented = new Set<string>();
let drifts: Drift[] = [];

function currentTest(): string | undefined {
  try {
    return expect.getState().currentTestName;
  } catch {
    return undefined;
  }
}

/** Records the verdict on one answer; a mismatch is kept until `takeDrifts()`. */
export function checkAnswer(validator: ResponseValidator, answer: Answer): void {
  for (const op of validator.operations()) documented.add(op);
  const verdict = validator.check(answer);
  if (verdict.kind === 'outside-api') stats.outsideApi++;
  else if (verdict.kind === 'unrouted') stats.unrouted++;
  else {
    operations.add(verdict.operation);
    if (answer.aborted || answer.body === undefined) stats.statusOnly++;
    else stats.validated++;
  }
  if (verdict.kind !== 'outside-api' && verdict.problems.length)
    drifts.push({
      test: currentTest(),
      request: `${answer.method} ${answer.path} → ${answer.status} ${answer.contentType ?? '(no type)'}`,
      problems: verdict.problems,
    });
}

/**
 * Express middleware, installed first on every in-process test app (see createTestApp), so
 * every answer of the app is checked whatever sent the request: the supertest agent, a raw
 * `request(server)`, node:http or fetch. It keeps a copy of the body as it is written, then
 * checks the answer when it has been sent (or cut short) with the validator of the live
 * document, which `validator()` returns once the app is up.
 */
export function validateResponses(validator: () => ResponseValidator | undefined) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const chunks: Buffer[] = [];
    let size = 0;
    const keep = (chunk: unknown, encoding: unknown) => {
      if (chunk == null || typeof chunk === 'function') return;
      const buf = Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(
            chunk as string,
            typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
          );
      size += buf.length;
      if (size <= MAX_CAPTURE_BYTES) chunks.push(buf);
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return write(chunk, ...rest);
    }) as Response['write'];
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return end(chunk, ...rest);
    }) as Response['end'];
    const method = req.method;
    const path = req.originalUrl.split('?')[0];
    // Tells the client-side check (checkRemoteAnswer) that this answer is checked here.
    res.setHeader(CHECKED_HEADER, 'in-process');
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      if (!res.headersSent) {
        stats.unanswered++;
        return;
      }
      if (outsideApi(method, path)) {
        stats.outsideApi++;
        return;
      }
      const v = validator();
      if (!v) {
        drifts.push({
          test: currentTest(),
          request: `${method} ${path} → ${res.statusCode}`,
          problems: ['answered before the OpenAPI document was loaded'],
        });
        return;
      }
      const contentType = res.getHeader('content-type');
      checkAnswer(v, {
        method,
        path,
        status: res.statusCode,
        contentType: contentType === undefined ? undefined : String(contentType),
        body: size > MAX_CAPTURE_BYTES ? undefined : Buffer.concat(chunks).toString('utf8'),
        aborted: !res.writableFinished,
      });
    };
    res.on('finish', settle);
    res.on('close', settle);
    next();
  };
}

/** The validator of a live document (`GET /api/docs-json` of the app under test). */
export function validatorOf(doc: OpenApiDocument): ResponseValidator {
  return new ResponseValidator(doc);
}

const CHECKED_HEADER = 'x-openapi-checked';

const remote = new Map<string, Promise<ResponseValidator>>();

/**
 * The validator for a service running in another process (fault tests): its document is read
 * once per base URL from the service itself.
 */
export function remoteValidator(base: string): Promise<ResponseValidator> {
  let v = remote.get(base);
  if (!v) {
    v = fetch(`${base}/api/docs-json`)
      .then((r) => r.json() as Promise<OpenApiDocument>)
      .then(validatorOf);
    v.catch(() => remote.delete(base));
    remote.set(base, v);
  }
  return v;
}

/**
 * Client side of the check, for services running in another process (fault tests, startup):
 * the answer is checked against that service's own document. Answers of an in-process test
 * app carry CHECKED_HEADER and were checked by its middleware already.
 */
export async function checkRemoteAnswer(
  base: string,
  answer: Omit<Answer, 'contentType'> & { headers: Record<string, string | string[] | undefined> },
): Promise<void> {
  if (answer.headers[CHECKED_HEADER]) return;
  const path = answer.path.split('?')[0];
  if (outsideApi(answer.method, path)) {
    stats.outsideApi++;
    return;
  }
  let validator: ResponseValidator;
  try {
    validator = await remoteValidator(base);
  } catch (err) {
    drifts.push({
      test: currentTest(),
      request: `${answer.method} ${path} → ${answer.status}`,
      problems: [`could not read the document of ${base}: ${String(err)}`],
    });
    return;
  }
  const contentType = answer.headers['content-type'];
  checkAnswer(validator, {
    ...answer,
    path,
    contentType: Array.isArray(contentType) ? contentType[0] : contentType,
  });
}

/** The mismatches recorded since the last call. */
export function takeDrifts(): Drift[] {
  const taken = drifts;
  drifts = [];
  return taken;
}

/** Throws one error listing every mismatch since the last call. */
export function assertNoDrift(): void {
  const found = takeDrifts();
  if (!found.length) return;
  const lines = found.map(
    (d) => `- ${d.request}${d.test ? ` (in "${d.test}")` : ''}\n    ${d.problems.join('\n    ')}`,
  );
  throw new Error(
    `${found.length} answer(s) do not match the OpenAPI document (fix the code or the ` +
      `@Endpoint / response decorators):\n${lines.join('\n')}`,
  );
}

export function validationStats(): ValidationStats {
  return { ...stats, operations: [...operations].sort(), documented: [...documented].sort() };
}

/** Writes this test file's counts where the global teardown sums them (OPENAPI_STATS_DIR). */
export function saveStats(file: string): void {
  const dir = process.env.OPENAPI_STATS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const name = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`;
  writeFileSync(join(dir, name), JSON.stringify({ file, ...validationStats() }));
}
