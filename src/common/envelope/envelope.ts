/**
 * Which response envelope a path uses (spec "Response envelopes"): B `{success, data | error}`
 * for the users, chats, upload, teams, invitations, tags, bookmarks, share and search routes, C (a plain
 * object, `{error, code}` on failure) for everything else. Decided by path so that errors raised before routing
 * (malformed JSON, oversized bodies) still answer in the route's envelope.
 */
export type Envelope = 'B' | 'C' | 'openai';

const ENVELOPE_B_PREFIXES = [
  '/api/users',
  '/api/chats',
  '/api/upload',
  '/api/teams',
  '/api/invitations',
  '/api/tags',
  '/api/bookmarks',
  '/api/share',
  '/api/search',
];

/** `path` is the request path without its query string. */
export function envelopeFor(path: string): Envelope {
  // The OpenAI wire protocol: OpenAI's bodies and `{error: {message, type, code}}`.
  if (path === '/v1' || path.startsWith('/v1/')) return 'openai';
  return ENVELOPE_B_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`)) ? 'B' : 'C';
}

/** A page of a cursor-paginated list: answered as `{success: true, data, nextCursor}`. */
export class Page<T> {
  constructor(
    readonly data: T[],
    readonly nextCursor: string | null,
  ) {}
}
