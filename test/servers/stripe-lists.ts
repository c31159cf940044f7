import type { StripeFailure } from './stripe-form';

type Routed = { body: unknown } | { error: StripeFailure['error']; status?: number };

/** The objects the list routes read, in creation order (the local server's maps). */
export interface ListSources {
  paymentIntents: Map<string, Record<string, any>>;
  sessions: Map<string, Record<string, any>>;
  /** Largest page answered (Stripe's is 100); a test lowers it to make the SDK page. */
  pageCap: number;
}

const invalid = (message: string, param: string): Routed => ({
  status: 400,
  error: { type: 'invalid_request_error', message, param },
});

/** Whether `created` (Unix seconds) passes Stripe's `created` filter: a number or gt/gte/lt/lte. */
function inRange(created: number, filter: unknown): boolean {
  if (filter === undefined) return true;
  if (typeof filter === 'string') return created === Number(filter);
  const f = filter as Record<string, string>;
  const bound = (k: string) => (f[k] === undefined ? undefined : Number(f[k]));
  const [gt, gte, lt, lte] = ['gt', 'gte', 'lt', 'lte'].map(bound);
  return (
    (gt === undefined || created > gt) &&
    (gte === undefined || created >= gte) &&
    (lt === undefined || created < lt) &&
    (lte === undefined || created <= lte)
  );
}

/**
 * One page of `all` as Stripe answers a list (API version 2024-06-20): newest first, `limit`
 * (1 to 100, default 10) items after the object `starting_after` names, `has_more` when more
 * follow. An unknown `starting_after` is Stripe's 400.
 */
function page(
  url: string,
  all: Record<string, any>[],
  q: Record<string, any>,
  cap: number,
): Routed {
  const limit = q.limit === undefined ? 10 : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    return invalid('Invalid integer: limit must be between 1 and 100', 'limit');
  // Newest first; objects created in the same second keep the reverse of their creation order.
  const ordered = all
    .map((o, i) => ({ o, i }))
    .sort((a, b) => b.o.created - a.o.created || b.i - a.i)
    .map(({ o }) => o);
  let from = 0;
  if (q.starting_after !== undefined) {
    const at = ordered.findIndex((o) => o.id === q.starting_after);
    if (at === -1) return invalid(`No such object: '${q.starting_after}'`, 'starting_after');
    from = at + 1;
  }
  const size = Math.min(limit, cap);
  const data = ordered.slice(from, from + size);
  return { body: { object: 'list', url, has_more: from + size < ordered.length, data } };
}

/** Drops the local server's own fields (`_…`), which Stripe does not return. */
const visible = (o: Record<string, any>) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => !k.startsWith('_')));

/**
 * `GET /v1/payment_intents` (filters `created`, `customer`) and `GET /v1/checkout/sessions`
 * (filters `created`, `status`, `payment_intent`, `customer`), paginated with `limit`,
 * `starting_after` and `has_more`; undefined for any other request.
 */
export function listRoute(
  s: ListSources,
  method: string,
  path: string,
  q: Record<string, any>,
): Routed | undefined {
  if (method !== 'GET') return undefined;
  if (path === '/v1/payment_intents') {
    const all = [...s.paymentIntents.values()].filter(
      (pi) => inRange(pi.created, q.created) && (!q.customer || pi.customer === q.customer),
    );
    return page(path, all, q, s.pageCap);
  }
  if (path === '/v1/checkout/sessions') {
    if (q.status !== undefined && !['open', 'complete', 'expired'].includes(q.status))
      return invalid('Invalid status: must be one of open, complete, or expired', 'status');
    const all = [...s.sessions.values()]
      .filter(
        (cs) =>
          inRange(cs.created, q.created) &&
          (!q.status || cs.status === q.status) &&
          (!q.payment_intent || cs.payment_intent === q.payment_intent) &&
          (!q.customer || cs.customer === q.customer),
      )
      .map(visible);
    return page(path, all, q, s.pageCap);
  }
  return undefined;
}
