import { randomUUID } from 'node:crypto';
import { API_SCOPES, type ApiScope } from '../../src/common/auth/api-scopes';
import { newUser } from '../support/factories';
import { createTestApp, type TestApp } from '../support/test-app';

interface Operation {
  security?: unknown[];
  'x-api-key-scope'?: ApiScope;
}

/**
 * The routes a personal API key reaches, by scope (issue 14). Changing this table is a
 * deliberate act: a route that gains a scope opens it to scripts holding keys.
 */
const SCOPED: Record<string, ApiScope> = {
  'POST /api/ai/generate': 'ai',
  'POST /api/ai/stream': 'ai',
  'POST /api/ai/chat': 'ai',
  'POST /api/credits/estimate': 'ai',
  'GET /v1/models': 'ai',
  'POST /v1/chat/completions': 'ai',
  'GET /api/chats': 'chats:read',
  'GET /api/chats/{id}': 'chats:read',
  'GET /api/chats/{id}/messages': 'chats:read',
  'GET /api/teams/{id}/chats': 'chats:read',
  'POST /api/chats': 'chats:write',
  'PATCH /api/chats/{id}': 'chats:write',
  'DELETE /api/chats/{id}': 'chats:write',
  'GET /api/credits': 'credits:read',
  'GET /api/credits/transactions': 'credits:read',
  'GET /api/credits/usage': 'credits:read',
};

/** Prefixes a key must never reach, whatever its scopes: account, keys, 2FA, payments, admin. */
const NEVER = [
  /^\/api\/keys/,
  /^\/api\/auth/,
  /^\/api\/users/,
  /^\/api\/user\//,
  /^\/api\/payments/,
  /^\/api\/subscriptions/,
  /^\/api\/admin/,
  /^\/api\/credits\/purchase/,
];

/** A table test over every operation of the live OpenAPI document. */
describe('API key scopes over every route', () => {
  let t: TestApp;
  let ops: { name: string; method: string; path: string; op: Operation }[];
  let authFor: (scopes: ApiScope[]) => Promise<{ Authorization: string }>;

  beforeAll(async () => {
    t = await createTestApp({ API_KEY_RPM: '100000' });
    const doc = (await t.http.get('/api/docs-json').expect(200)).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, method, path, op })),
    );
    const u = await newUser(t);
    authFor = async (scopes) => {
      const res = await t.http
        .post('/api/keys')
        .set(u.auth)
        .send({ name: 't', scopes })
        .expect(201);
      return { Authorization: `Bearer ${res.body.key}` };
    };
  });
  afterAll(() => t.close());

  const call = (o: { method: string; path: string }, auth: { Authorization: string }) =>
    t.http[o.method as 'get'](
      o.path.replace(/\{[^}]+\}/g, (p) => (p === '{filename}' ? 'x.txt' : randomUUID())),
    )
      .set(auth)
      .send({});
  const refused = (res: { status: number; body: { code?: string; error?: { code?: string } } }) =>
    res.status === 403 &&
    (res.body.code ?? res.body.error?.code?.toUpperCase()) === 'INSUFFICIENT_SCOPE';

  it('documents exactly the scoped routes of the table, and none of the forbidden areas', () => {
    const documented = Object.fromEntries(
      ops.filter((o) => o.op['x-api-key-scope']).map((o) => [o.name, o.op['x-api-key-scope']]),
    );
    expect(documented).toEqual(SCOPED);
    for (const name of Object.keys(SCOPED))
      expect([name, NEVER.some((re) => re.test(name.split(' ')[1]))]).toEqual([name, false]);
  });

  it('lets a key with every scope reach exactly the scoped routes; every other secured route is 403 INSUFFICIENT_SCOPE', async () => {
    const all = await authFor([...API_SCOPES]);
    const wrong: string[] = [];
    for (const o of ops) {
      if (o.op.security?.length === 0) continue; // public: a key is not a session there
      const res = await call(o, all);
      const expected = o.name in SCOPED ? 'reached' : 'refused';
      const got = refused(res) ? 'refused' : res.status === 401 ? 'unauthenticated' : 'reached';
      if (got !== expected) wrong.push(`${o.name}: ${got} (${res.status}), expected ${expected}`);
    }
    expect(wrong).toEqual([]);
  });

  it.each(API_SCOPES.map((s) => [s]))(
    'a key without %s is refused on its routes, and reaches them with it',
    async (scope) => {
      const others = API_SCOPES.filter((s) => s !== scope);
      const [without, only] = await Promise.all([authFor(others), authFor([scope])]);
      for (const o of ops.filter((x) => SCOPED[x.name] === scope)) {
        expect([o.name, refused(await call(o, without))]).toEqual([o.name, true]);
        expect([o.name, refused(await call(o, only))]).toEqual([o.name, false]);
      }
    },
  );
});
