import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { SessionUser } from '../common/auth/session-user';

/** The HTTP request an action runs for, so audit rows carry its actor, request id and address. */
const storage = new AsyncLocalStorage<Request>();

/**
 * Express middleware: runs the rest of the request inside its context. The request object is
 * kept (not copied), because the guard sets `req.user` later than this runs.
 */
export function requestContext(req: Request, _res: Response, next: NextFunction): void {
  storage.run(req, next);
}

export interface RequestFacts {
  user: SessionUser | null;
  requestId: string | null;
  ip: string | null;
  /** The `User-Agent` header, at most 512 characters. */
  userAgent: string | null;
}

/**
 * The current request's user, pino request id, client address and user agent; nulls outside a
 * request.
 */
export function currentRequest(): RequestFacts {
  const req = storage.getStore() as (Request & { id?: unknown; user?: SessionUser }) | undefined;
  if (!req) return { user: null, requestId: null, ip: null, userAgent: null };
  return {
    user: req.user ?? null,
    requestId: req.id == null ? null : String(req.id).slice(0, 64),
    ip: req.ip ? req.ip.slice(0, 64) : null,
    userAgent: req.headers['user-agent']?.slice(0, 512) || null,
  };
}
