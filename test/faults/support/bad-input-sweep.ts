import fc from 'fast-check';
import { type SweepApp, useSweepApp } from './bad-input-app';
import { isAnthropicPath } from '../../../src/gateway/anthropic-error';
import { type Answer, call } from './http';
import { loneSurrogateRequests } from './lone-surrogates';
import { type FuzzRequest, requestsFor, type Route, routesOf } from './openapi-fuzz';

/** Generated requests per route and method (FUZZ_RUNS overrides; FUZZ_SEED replays a run). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

/**
 * Each route is its own test, with a time limit scaled to its work: one world set-up plus an
 * allowance per generated request. A request normally takes a few tens of ms (two database
 * fingerprints included) and the slowest route (POST /api/auth/2fa/setup, a QR code per answer)
 * about 3 s with both cores of a shared machine saturated; the allowance is above that.
 */
const WORLD_MS = 30_000;
const PER_REQUEST_MS = 5_000;
/** One answer later than this is a hang (answers take milliseconds), reported with its request. */
const HANG_MS = 10_000;

/** `METHOD /templated/path`, the key a route is listed under in a sweep group. */
export const routeKey = (r: Pick<Route, 'method' | 'path'>): string => `${r.method} ${r.path}`;

/**
 * 5xx answers the README documents as the upstream's fault, not ours: the AI classification of
 * provider errors, the payment processor's errors and missing configuration, a failing webhook
 * handler (so the processor retries), and readiness without a database.
 */
function documented5xx(route: Route, status: number, code: unknown): boolean {
  if (route.path.startsWith('/api/ai/'))
    return status === 500 && ['SERVICE_UNAVAILABLE', 'UNKNOWN_ERROR'].includes(code as string);
  if (route.path.includes('webhooks')) return status === 500 && code === 'WEBHOOK_HANDLER_FAILED';
  if (/payment|billing|credits\/purchase/.test(route.path))
    return (
      (status === 502 && code === 'PAYMENT_PROVIDER_ERROR') ||
      (status === 503 && code === 'PAYMENTS_NOT_CONFIGURED')
    );
  if (route.path === '/health/ready') return status === 503 && code === 'NOT_READY';
  // The price sync with no PRICES_URL (the sweep's app has none), as documented.
  if (route.path === '/api/admin/prices/sync')
    return status === 503 && code === 'SERVICE_UNAVAILABLE';
  return false;
}

/** The error body each family of routes answers. */
const ERROR_SHAPE = {
  ours: '{error, code}',
  openai: '{error: {message, code}}',
  anthropic: '{type: "error", error: {type, message, details: {error_code}}}',
};

/** Every check of one answer; throws with the request and the answer when one fails. */
function check(route: Route, req: FuzzRequest, res: Answer, rejectedWrote: string[]): void {
  const fail = (why: string) => {
    throw new Error(
      `${why}\n  request: ${req.label}\n  answer: ${res.status} ${res.text.slice(0, 300)}`,
    );
  };
  // `/v1` errors are OpenAI's `{error: {message, type, code}}`, `/v1/messages*` Anthropic's
  // `{type: "error", error: {type, message, details: {error_code}}}`; the code is ours lower-cased.
  const shape = isAnthropicPath(route.path)
    ? 'anthropic'
    : route.path.startsWith('/v1/')
      ? 'openai'
      : 'ours';
  const body = shape === 'ours' ? res.json : res.json?.error;
  const wireCode = shape === 'anthropic' ? body?.details?.error_code : body?.code;
  const code = shape === 'ours' ? body?.code : wireCode?.toUpperCase();
  const message = shape === 'ours' ? body?.error : body?.message;
  if (res.status >= 500 && !documented5xx(route, res.status, code)) fail('undocumented 5xx');
  if (res.status >= 400 && (typeof message !== 'string' || typeof code !== 'string'))
    fail(`error body without ${ERROR_SHAPE[shape]}`);
  if (
    res.status >= 400 &&
    shape === 'anthropic' &&
    (res.json?.type !== 'error' || typeof body?.type !== 'string')
  )
    fail(`error body without ${ERROR_SHAPE[shape]}`);
  // A signed event whose handler failed is kept for replay: that row is the documented effect
  // of its 500, not a write of rejected input.
  const wrote =
    res.status === 500 && code === 'WEBHOOK_HANDLER_FAILED'
      ? rejectedWrote.filter((table) => table !== 'webhook_failures')
      : rejectedWrote;
  if (res.status >= 400 && wrote.length) fail(`rejected request changed ${wrote.join(', ')}`);
}

/**
 * Bad input sweep over `routes` (`METHOD /path` keys of the OpenAPI document): for each, random
 * and malformed path parameters, query strings, headers and bodies (fast-check). The service
 * never answers an undocumented 5xx, never hangs or dies, every error body carries `error` and
 * `code`, and a rejected request (4xx or 5xx) changes no row of any table and no uploaded file.
 * One test per route, on the app of `app` (by default one booted for this describe block).
 * bad-input.fault-spec.ts checks that the groups together cover every route of the document.
 */
export function sweepRoutes(group: string, routes: readonly string[], app?: () => SweepApp): void {
  describe(`bad input sweep: ${group}`, () => {
    const s = app?.() ?? useSweepApp();
    const tally: Record<string, number> = {};

    afterAll(() => {
      // Visible in the test output: how the answers spread.
      process.stdout.write(
        `bad input sweep (${group}): ${routes.length} routes × ${RUNS} runs, answers ${JSON.stringify(tally)}\n`,
      );
    });

    it.each(routes)(
      '%s: no undocumented 5xx, stays up, rejected input writes nothing',
      async (key) => {
        const route = routesOf(s.doc).find((r) => routeKey(r) === key);
        if (!route) throw new Error(`${key} is not in the document: remove it from its group`);
        const world = await s.newWorld();
        const property = fc.asyncProperty(requestsFor(route, s.doc, world), async (req) => {
          const before = await s.snapshot();
          const res = await call(s.base, route.method, req.path, {
            headers: req.headers,
            body: req.body,
            timeoutMs: HANG_MS,
          });
          let after = await s.snapshot();
          // multer answers a broken multipart body while the engine is still deleting the
          // partial file: look again a bounded number of times before calling it a write.
          for (
            let i = 0;
            i < 20 && res.status >= 400 && after.uploadsOnDisk !== before.uploadsOnDisk;
            i++
          ) {
            await new Promise((r) => setTimeout(r, 50));
            after = await s.snapshot();
          }
          const changed = Object.keys(before).filter((k) => before[k] !== after[k]);
          const bucket =
            res.status >= 500
              ? `${res.status} ${res.json?.code}`
              : `${Math.floor(res.status / 100)}xx`;
          tally[bucket] = (tally[bucket] ?? 0) + 1;
          // Accepted requests that wrote: proof that the fingerprint sees writes at all.
          if (res.status < 400 && changed.length)
            tally.acceptedAndWrote = (tally.acceptedAndWrote ?? 0) + 1;
          check(route, req, res, changed);
          const live = await call(s.base, 'GET', '/health/live');
          if (live.status !== 200) throw new Error(`not alive after ${req.label}`);
        });
        // fast-check's message names the seed and path that replay the shrunk failing request.
        await fc.assert(property, { numRuns: RUNS, seed: SEED });
      },
      WORLD_MS + RUNS * PER_REQUEST_MS,
    );

    it.each(routes)(
      '%s: a lone surrogate in a body it reads is a 4xx that changes nothing; elsewhere no 5xx',
      async (key) => {
        const route = routesOf(s.doc).find((r) => routeKey(r) === key)!;
        for (const req of loneSurrogateRequests(route, s.doc, await s.newWorld())) {
          const before = await s.snapshot();
          const res = await call(s.base, route.method, req.path, {
            headers: req.headers,
            body: req.body,
            timeoutMs: HANG_MS,
          });
          const after = await s.snapshot();
          const changed = Object.keys(before).filter((k) => before[k] !== after[k]);
          if (req.refusable && (res.status < 400 || res.status >= 500))
            throw new Error(
              `not a 4xx\n  request: ${req.label}\n  answer: ${res.status} ${res.text.slice(0, 300)}`,
            );
          check(route, req, res, changed);
        }
      },
      WORLD_MS + 6 * PER_REQUEST_MS,
    );
  });
}
