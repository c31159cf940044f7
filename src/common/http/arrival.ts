import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, Response } from 'express';

const RECEIVED_AT = Symbol('receivedAt');

/**
 * Express middleware, first in the chain: stamps when the request arrived, so `app;dur` also
 * counts the pipeline before the controller (logging, body parsing, session, validation);
 * AI answers use it for `Server-Timing`.
 */
export function stampArrival(req: Request, _res: Response, next: NextFunction): void {
  (req as Request & { [RECEIVED_AT]?: number })[RECEIVED_AT] = performance.now();
  next();
}

/** When `req` arrived (performance.now() ms), or now when it was not stamped. */
export function arrivalOf(req: Request): number {
  return (req as Request & { [RECEIVED_AT]?: number })[RECEIVED_AT] ?? performance.now();
}
