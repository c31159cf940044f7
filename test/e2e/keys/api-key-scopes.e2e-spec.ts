import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_SCOPES, type ApiScope } from '../../../src/common/auth/api-scopes';
import { newChat, newTeam, newUser, type TestUser, fundPool } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { PNG_BYTES } from '../../support/uploads';

interface Operation {
  security?: unknown[];
  'x-api-key-scope'?: ApiScope;
}

/**
 * The routes a personal API key reaches, by scope. Changing this table is a
 * deliberate act: a route that gains a scope opens it to scripts holding keys.
 */
const SCOPED: Record<string, ApiScope> = {
  'POST /api/ai/generate': 'ai',
  'POST /api/ai/stream': 'ai',
  'POST /api/ai/chat': 'ai',
  'POST /api/credits/estimate': 'ai',
  'GET /v1/models': 'ai',
  'GET /v1/models/{model}': 'ai',
  'POST /v1/chat/completions': 'ai',
  'POST /v1/embeddings': 'ai',
  'POST /v1/messages': 'ai',
  'POST /v1/messages/count_tokens': 'ai',
  'POST /v1/responses': 'ai',
  'GET /v1/responses/{response_id}': 'chats:read',
  'DELETE /v1/responses/{response_id}': 'chats:write',
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
  'GET /api/credits/limits': 'credits:read',
  'GET /api/generations': 'credits:read',
  'GET /v1/key': 'ai',
  'GET /v1/generations/{id}': 'ai',
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
  // Our `{code}`, OpenAI's `{error: {code}}` (`/v1`), Anthropic's `{error: {details: {error_code}}}`.
  const refused = (res: {
    status: number;
    body: { code?: string; error?: { code?: string; details?: { error_code?: string } } };
  }) =>
    res.status === 403 &&
    (res.body.code ??
      (res.body.error?.code ?? res.body.error?.details?.error_code)?.toUpperCase()) ===
      'INSUFFICIENT_SCOPE';

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

/**
 * A key acts with its scopes on every resource a request touches, not only at the route: the
 * AI routes (reached with `ai`) also write into the chat `chatId` names (`chats:write`), read
 * uploads that are not the key user's own (`chats:read`), and run tools that read chats
 * (`search_my_chats`: `chats:read`).
 */
describe('API key scopes over the resources a request touches', () => {
  let t: TestApp;
  let p: Providers;
  let u: TestUser;
  let other: TestUser;
  let keyFor: (scopes: ApiScope[]) => Promise<{ Authorization: string }>;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({
      ...p.env,
      API_KEY_RPM: '100000',
      UPLOAD_DIR: mkdtempSync(join(tmpdir(), 'scoped-uploads-')),
    });
    u = await newUser(t, { credits: 1000 });
    other = await newUser(t, { credits: 1000 });
    keyFor = async (scopes) => {
      const res = await t.http
        .post('/api/keys')
        .set(u.auth)
        .send({ name: 'k', scopes })
        .expect(201);
      return { Authorization: `Bearer ${res.body.key}` };
    };
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  async function upload(owner: TestUser): Promise<{ id: string; filename: string }> {
    const res = await t.http.post('/api/upload').set(owner.auth).attach('file', PNG_BYTES, 'a.png');
    expect(res.status).toBe(200);
    const [{ filename }] = await t.db.query('SELECT filename FROM uploads WHERE id = $1', [
      res.body.data.id,
    ]);
    return { id: res.body.data.id, filename };
  }
  const text = (content = 'Hi') => [{ role: 'user', content }];
  const image = (ref: object) => [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Look' },
        { type: 'image', ...ref },
      ],
    },
  ];
  const outcome = (res: { status: number; body: any }) => {
    const code = res.body.code ?? res.body.error?.code?.toUpperCase();
    return `${res.status} ${code ?? ''}`.trim();
  };

  it('an `ai`-only key: INSUFFICIENT_SCOPE for chatId (own or foreign), foreign uploads and search_my_chats; a key with the scopes works', async () => {
    const team = await newTeam(t, other, { members: [[u, 'MEMBER']] });
    await fundPool(t, team.id); // the pool pays for calls in the team's chat
    const teamChat = await newChat(t, other, { title: 'Team', teamId: team.id });
    const strangerChat = await newChat(t, other, { title: 'Private' });
    const ownChat = await newChat(t, u, { title: 'Mine', messages: ['hello'] });
    const mine = await upload(u);
    // The other user's image, attached in the team chat: readable by the member's session.
    const theirs = await upload(other);
    await t.http
      .post('/api/ai/generate')
      .set(other.auth)
      .send({
        modelId: 'gpt-4o-mini',
        chatId: teamChat.id,
        messages: image({ uploadId: theirs.id }),
      })
      .expect(200);
    p.reset();

    const [aiOnly, scoped] = await Promise.all([
      keyFor(['ai']),
      keyFor(['ai', 'chats:read', 'chats:write']),
    ]);
    const generate = (auth: { Authorization: string }, body: object) =>
      t.http
        .post('/api/ai/generate')
        .set(auth)
        .send({ modelId: 'gpt-4o-mini', messages: text(), ...body });
    const v1Image = (auth: { Authorization: string }, url: string) =>
      t.http
        .post('/v1/chat/completions')
        .set(auth)
        .send({
          model: 'gpt-4o-mini',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Look' },
                { type: 'image_url', image_url: { url } },
              ],
            },
          ],
        });
    const uiChat = (auth: { Authorization: string }, id: string) =>
      t.http
        .post('/api/ai/chat')
        .set(auth)
        .send({
          id,
          modelId: 'gpt-4o-mini',
          messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
        });
    const unknownId = randomUUID();
    const messageCount = async () =>
      Number((await t.db.query('SELECT count(*) FROM messages'))[0].count);
    const before = await messageCount();

    const refusals: [string, Promise<{ status: number; body: any }>][] = [
      ['search_my_chats', generate(aiOnly, { plugins: ['search_my_chats'] })],
      ['own chatId', generate(aiOnly, { chatId: ownChat.id })],
      ['team chatId', generate(aiOnly, { chatId: teamChat.id })],
      ["a stranger's chatId", generate(aiOnly, { chatId: strangerChat.id })],
      ['foreign uploadId', generate(aiOnly, { messages: image({ uploadId: theirs.id }) })],
      ['unknown uploadId', generate(aiOnly, { messages: image({ uploadId: unknownId }) })],
      [
        'foreign upload URL',
        generate(aiOnly, { messages: image({ url: `/uploads/${theirs.filename}` }) }),
      ],
      [
        'unknown upload URL',
        generate(aiOnly, { messages: image({ url: '/uploads/nothing.png' }) }),
      ],
      ['/v1 foreign image_url', v1Image(aiOnly, `/uploads/${theirs.filename}`)],
      ['/api/ai/chat own chat', uiChat(aiOnly, ownChat.id)],
      ["/api/ai/chat a stranger's chat", uiChat(aiOnly, strangerChat.id)],
    ];
    const got: Record<string, string> = {};
    for (const [name, res] of refusals) got[name] = outcome(await res);
    expect(got).toEqual(
      Object.fromEntries(refusals.map(([name]) => [name, '403 INSUFFICIENT_SCOPE'])),
    );
    const first = await generate(aiOnly, { chatId: ownChat.id });
    expect(first.body.requiredScope).toBe('chats:write');
    const second = await generate(aiOnly, { messages: image({ uploadId: theirs.id }) });
    expect(second.body.requiredScope).toBe('chats:read');
    expect(p.openai.requests).toHaveLength(0);
    expect(await messageCount()).toBe(before);

    // Its user's own uploads in no chat, new chats and tools reading only their arguments stay
    // open to it (an upload the exchange attaches is then in a chat: api-key-scopes-uploads).
    expect((await v1Image(aiOnly, `/uploads/${mine.filename}`)).status).toBe(200);
    expect((await generate(aiOnly, { messages: image({ uploadId: mine.id }) })).status).toBe(200);
    expect((await generate(aiOnly, { plugins: ['calculator'] })).status).toBe(200);

    // A key holding the scopes acts as its user's session would.
    const works: [string, Promise<{ status: number; body: any }>, string][] = [
      ['own chatId', generate(scoped, { chatId: ownChat.id }), '200'],
      ['team chatId', generate(scoped, { chatId: teamChat.id }), '200'],
      ["a stranger's chatId", generate(scoped, { chatId: strangerChat.id }), '404 NOT_FOUND'],
      [
        'uploadId from the team chat',
        generate(scoped, { messages: image({ uploadId: theirs.id }) }),
        '200',
      ],
      [
        'unknown uploadId',
        generate(scoped, { messages: image({ uploadId: unknownId }) }),
        '404 NOT_FOUND',
      ],
      ['search_my_chats in a new chat', generate(scoped, { plugins: ['search_my_chats'] }), '200'],
      [
        'search_my_chats in the team chat',
        generate(scoped, { chatId: teamChat.id, plugins: ['search_my_chats'] }),
        '403 PLUGIN_NOT_ALLOWED',
      ],
      ['/api/ai/chat own chat', uiChat(scoped, ownChat.id), '200'],
      ["/api/ai/chat a stranger's chat", uiChat(scoped, strangerChat.id), '404 NOT_FOUND'],
      ['/api/ai/chat a new id', uiChat(aiOnly, randomUUID()), '200'],
    ];
    const done: Record<string, string> = {};
    for (const [name, res] of works) done[name] = outcome(await res);
    expect(done).toEqual(Object.fromEntries(works.map(([name, , want]) => [name, want])));
  });
});
