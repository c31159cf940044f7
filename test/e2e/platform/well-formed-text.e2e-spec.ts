import { startProviders, type Providers } from '../../support/providers';
import { newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

/** A lone UTF-16 surrogate between two letters: `"a\ud800b"` in JSON. */
const LONE = 'a\ud800b';

/**
 * Text must be well-formed Unicode: a lone surrogate in a body (value or key) is a 400 that
 * changes nothing, as U+0000 is, on every route (jsonb refuses it, so it used to fail the
 * statement with a 500). A model answering one cannot fail a stored response after its charge.
 */
describe('well-formed text only', () => {
  let t: TestApp;
  let p: Providers;
  let u: TestUser;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, API_KEY_RPM: '100000' });
    u = await newUser(t, { credits: 1000 });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  /** Everything a refused request could have changed for `u`. */
  const state = async () =>
    (
      await t.db.query(
        `SELECT (SELECT credits FROM users WHERE id = $1) AS credits,
                (SELECT preferences::text FROM users WHERE id = $1) AS preferences,
                (SELECT count(*)::int FROM credit_transactions WHERE "userId" = $1) AS entries,
                (SELECT count(*)::int FROM credit_holds) AS holds,
                (SELECT count(*)::int FROM chats WHERE "userId" = $1) AS chats,
                (SELECT count(*)::int FROM messages) AS messages,
                (SELECT count(*)::int FROM api_keys WHERE "userId" = $1) AS keys,
                (SELECT count(*)::int FROM responses WHERE "userId" = $1) AS responses`,
        [u.user.id],
      )
    )[0];
  const codeOf = (res: { status: number; body: any }) =>
    `${res.status} ${res.body.code ?? res.body.error?.code?.toUpperCase()}`;

  it('refuses a lone surrogate with 400 on key names, preferences, chats, AI calls and /v1/responses with store, changing nothing and sending nothing upstream', async () => {
    const key = await t.http
      .post('/api/keys')
      .set(u.auth)
      .send({ name: 'k', scopes: ['ai', 'chats:read', 'chats:write'] })
      .expect(201);
    const keyAuth = { Authorization: `Bearer ${key.body.key}` };
    const before = await state();
    const calls: [string, Promise<{ status: number; body: any }>][] = [
      ['key name', t.http.post('/api/keys').set(u.auth).send({ name: LONE })],
      [
        'a key in an object',
        t.http
          .post('/api/keys')
          .set(u.auth)
          .send({ name: 'k', [LONE]: 1 }),
      ],
      [
        'systemPrompt',
        t.http.put('/api/user/preferences').set(u.auth).send({ systemPrompt: LONE }),
      ],
      ['chat title', t.http.post('/api/chats').set(u.auth).send({ title: LONE })],
      [
        '/api/ai/generate',
        t.http
          .post('/api/ai/generate')
          .set(u.auth)
          .send({ modelId: 'gpt-4o-mini', messages: [{ role: 'user', content: LONE }] }),
      ],
      [
        '/v1/responses store: true',
        t.http
          .post('/v1/responses')
          .set(keyAuth)
          .send({ model: 'gpt-4o-mini', input: LONE, store: true }),
      ],
      [
        '/v1/chat/completions',
        t.http
          .post('/v1/chat/completions')
          .set(keyAuth)
          .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: LONE }] }),
      ],
    ];
    const got: Record<string, string> = {};
    for (const [name, res] of calls) got[name] = codeOf(await res);
    expect(got).toEqual(Object.fromEntries(calls.map(([name]) => [name, '400 VALIDATION_FAILED'])));
    expect(p.openai.requests).toHaveLength(0);
    expect(await state()).toEqual(before);
  });

  it('stores a response whose model answered a lone surrogate, with U+FFFD, after one charge', async () => {
    const key = await t.http
      .post('/api/keys')
      .set(u.auth)
      .send({ name: 'k', scopes: ['ai', 'chats:read'] })
      .expect(201);
    const keyAuth = { Authorization: `Bearer ${key.body.key}` };
    p.openai.reply = { text: `Half a pair: ${LONE}` };
    const before = await state();

    const res = await t.http
      .post('/v1/responses')
      .set(keyAuth)
      .send({ model: 'gpt-4o-mini', input: 'Say something odd.', store: true });
    expect(res.status).toBe(200);
    const after = await state();
    expect(after.entries).toBe(before.entries + 1);
    expect(after.responses).toBe(before.responses + 1);
    expect(after.chats).toBe(before.chats + 1);
    const stored = await t.http.get(`/v1/responses/${res.body.id}`).set(keyAuth).expect(200);
    expect(stored.body.output_text ?? stored.body.output[0].content[0].text).toBe(
      'Half a pair: a\ufffdb',
    );
  });
});
