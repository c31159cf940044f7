import * as http from 'node:http';
import * as https from 'node:https';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { guardedLookup } from './guarded-lookup';
import { checkPluginUrl } from './url-guard';

/** The `fetch` shape the MCP SDK's transports accept. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for plugin servers that applies the SSRF rules to every request (redirects too,
 * since the SDK fetches them again): `checkPluginUrl` on the URL, then `guardedLookup` on the
 * resolved addresses of a host that is not allow-listed. Built on node:http rather than the
 * global fetch because only there can the socket be made to use the checked addresses.
 * Rejects with PLUGIN_URL_FORBIDDEN or the network error; honours `init.signal`.
 */
export function guardedFetch(allowedHosts: readonly string[]): FetchLike {
  return async (input, init = {}) => {
    const { url, allowListed } = checkPluginUrl(input, allowedHosts);
    const method = (init.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const body = await bodyBytes(init.body);
    if (body) headers['content-length'] = String(body.length);
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const req = transport.request(
        url,
        {
          method,
          headers,
          signal: init.signal ?? undefined,
          // No pooled sockets: each connection is resolved and checked afresh.
          agent: false,
          lookup: allowListed ? undefined : guardedLookup,
        },
        (res) => {
          const out = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (Array.isArray(value)) value.forEach((v) => out.append(name, v));
            else if (value !== undefined) out.set(name, value);
          }
          const status = res.statusCode ?? 502;
          const empty = NULL_BODY_STATUSES.has(status) || method === 'HEAD';
          if (empty) res.resume();
          const stream = empty ? null : (Readable.toWeb(res) as WebReadableStream<Uint8Array>);
          resolve(
            new Response(stream as unknown as ConstructorParameters<typeof Response>[0], {
              status,
              statusText: res.statusMessage,
              headers: out,
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
}

/** The request body as bytes; the SDK sends JSON strings (or nothing). */
async function bodyBytes(body: RequestInit['body']): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.from(await new Response(body).arrayBuffer());
}
