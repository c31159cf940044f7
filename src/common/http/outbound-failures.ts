import { Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { NextFunction, Request, Response } from 'express';

/** What undici publishes (Node's built-in fetch included, hence the providers' SDKs). */
interface UndiciMessage {
  request: object & { origin?: string | URL };
  error?: Error & { code?: string };
}

/** Per incoming request: did its latest outbound request end without any HTTP answer? */
interface Attempts {
  unanswered: boolean;
}

const logger = new Logger('Outbound');
const context = new AsyncLocalStorage<Attempts>();
/** Outbound requests whose response headers arrived (a later error broke an answer). */
const answered = new WeakSet<object>();
let subscribed = false;

/**
 * Watches every outbound HTTP request (undici's diagnostics channels):
 * - logs at warn each one the network failed before any answer, naming its origin and the
 *   error's code, e.g. `Outbound request to http://127.0.0.1:4010 failed: ECONNREFUSED (connect
 *   ECONNREFUSED 127.0.0.1:4010)`: the origin only, never a path, query, header or body. Aborts
 *   are not logged (our own, or an SDK's timeout: the caller says why it aborted);
 * - remembers, for the incoming request it runs in (`trackOutbound`), whether the latest one got
 *   no HTTP answer at all (`lastOutboundUnanswered`).
 * Idempotent: one subscription per process, however many apps it builds.
 */
export function watchOutboundRequests(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('undici:request:headers', (message) => {
    answered.add((message as UndiciMessage).request);
    const attempts = context.getStore();
    if (attempts) attempts.unanswered = false;
  });
  subscribe('undici:request:error', (message) => {
    const { request, error } = message as UndiciMessage;
    if (answered.has(request)) return; // an answer broke off: it was reached
    const attempts = context.getStore();
    if (attempts) attempts.unanswered = true;
    if (!error?.code || error.name === 'AbortError') return;
    const origin = String(request.origin ?? 'an unknown origin');
    logger.warn(
      { origin, code: error.code },
      `Outbound request to ${origin} failed: ${error.code} (${error.message})`,
    );
  });
}

/** Express middleware: the request's outbound calls are remembered for it alone. */
export function trackOutbound(_req: Request, _res: Response, next: NextFunction): void {
  context.run({ unanswered: false }, next);
}

/**
 * True when the latest outbound request made for the current incoming request got no HTTP
 * answer (refused, reset or timed out before a response); false when it got one (even one that
 * broke off later); undefined outside an incoming request (a background job) or before any.
 */
export function lastOutboundUnanswered(): boolean | undefined {
  return context.getStore()?.unanswered;
}
