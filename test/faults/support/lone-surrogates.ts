import fc from 'fast-check';
import { signatureFor } from '../../servers/stripe-events';
import {
  type FuzzRequest,
  type FuzzWorld,
  type OpenApiDoc,
  type Route,
  validFor,
} from './openapi-fuzz';

/** A lone UTF-16 surrogate between two letters (`"a\ud800b"` in JSON). */
export const LONE_SURROGATE = 'a\ud800b';

/** Whether `v` holds a string (value or key) that is not well-formed UTF-16. */
export function holdsLoneSurrogate(v: unknown): boolean {
  if (typeof v === 'string') return !v.isWellFormed();
  if (v === null || typeof v !== 'object') return false;
  return Object.entries(v).some(([k, child]) => !k.isWellFormed() || holdsLoneSurrogate(child));
}

/** `v` with a lone surrogate appended to every string value (keys kept, so they stay known). */
function everyStringBroken(v: unknown): unknown {
  if (typeof v === 'string') return v + LONE_SURROGATE;
  if (Array.isArray(v)) return v.map(everyStringBroken);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, child]) => [k, everyStringBroken(child)]));
}

/**
 * The lone-surrogate requests for `route`, the same on every run (seeded): for a declared JSON
 * body, two near-valid bodies with a lone surrogate after every string value, one holding a key
 * that is one, and a bare string of one (for other routes, one such body, which they do not
 * read); and a path parameter spelling one in CESU-8 (`%ED%A0%80`, which is no UTF-8). Sent with
 * the admin's session (`world.bearers[1]`) to admin routes and the user's (`[0]`) to the others,
 * a webhook body signed. `refusable` marks the requests whose body holds a lone surrogate the
 * route reads: those must be 4xx. Query strings and headers cannot carry one: HTTP carries
 * bytes, and UTF-8 decoding turns ill-formed bytes into U+FFFD, never a lone surrogate.
 */
export function loneSurrogateRequests(
  route: Route,
  doc: OpenApiDoc,
  world: FuzzWorld,
): (FuzzRequest & { refusable: boolean })[] {
  const schema = route.body?.type === 'json' ? route.body.schema : undefined;
  const bodies: unknown[] = [{ title: LONE_SURROGATE }];
  if (schema) {
    const valid = fc.sample(validFor(schema, doc, world), { numRuns: 2, seed: 7 });
    const asObject = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
    bodies.splice(0, 1, ...valid.map(everyStringBroken));
    bodies.push({ ...asObject(valid[0]), [LONE_SURROGATE]: 1 }, LONE_SURROGATE);
  }
  let path = route.path;
  route.pathParams.forEach((name, i) => (path = path.replace(`{${name}}`, world.ids[i] ?? 'x')));
  const admin = /^\/api\/(admin|users)\b/.test(route.path);
  const headers = {
    authorization: world.bearers[admin ? 1 : 0],
    'content-type': 'application/json',
  };
  const out: (FuzzRequest & { refusable: boolean })[] = bodies.map((body) => {
    const text = JSON.stringify(body);
    const signed: Record<string, string> = route.path.includes('webhooks')
      ? { 'stripe-signature': signatureFor(text, world.webhookSecret) }
      : {};
    return {
      path,
      headers: { ...headers, ...signed },
      body: Buffer.from(text),
      label: `${route.method} ${path} body=${text.slice(0, 300)}`,
      refusable: !!schema && holdsLoneSurrogate(body),
    };
  });
  if (route.pathParams.length) {
    const broken = route.path.replace(`{${route.pathParams[0]}}`, '%ED%A0%80');
    out.push({ path: broken, headers, label: `${route.method} ${broken}`, refusable: false });
  }
  return out;
}
