import { KEYS, startProviders, type Providers } from '../../support/providers';
import { ledgerOf, newChat, newTeam, newUser, fundPool } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

describe('AI generate: three providers, metered and saved', () => {
  let t: TestApp;
  let p: Providers;
  const ask = (modelId: string, extra: Record<string, unknown> = {}) => ({
    modelId,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello' },
    ],
    ...extra,
  });

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp(p.env);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  it('lists the extended catalogue publicly, two or more models per provider', async () => {
    const { models } = (await t.http.get('/api/ai/models').expect(200)).body;
    for (const provider of ['openai', 'anthropic', 'google']) {
      const mine = models.filter((m: { providerId: string }) => m.providerId === provider);
      expect(mine.length).toBeGreaterThanOrEqual(2);
    }
    expect(models[0]).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        name: expect.any(String),
        maxTokens: expect.any(Number),
        costPerToken: expect.any(String),
        description: expect.any(String),
        inputPrice: expect.any(Number),
        outputPrice: expect.any(Number),
        available: true,
      }),
    );
    expect(JSON.stringify(models)).not.toContain(KEYS.openai);
  });

  it.each([
    // [model, server, usage as the provider reports it, expected usage, expected cost, reasoning]
    [
      'gpt-4o',
      'openai',
      { usage: { prompt_tokens: 600, completion_tokens: 300 } },
      [600, 300],
      9,
      undefined,
    ],
    [
      'claude-haiku-4-5',
      'anthropic',
      { usage: { input_tokens: 1000, output_tokens: 400 } },
      [1000, 400],
      7,
      undefined,
    ],
    [
      'gemini-2.5-flash',
      'gemini',
      { usage: { promptTokenCount: 100, candidatesTokenCount: 300, thoughtsTokenCount: 1000 } },
      [100, 1300],
      4,
      1000,
    ],
  ] as const)(
    '%s: exact usage, exact cost, one CONSUMPTION entry, chat saved',
    async (model, server, reply, [pt, ct], price, reasoningTokens) => {
      const u = await newUser(t);
      p[server].reply = { text: 'Hi!', ...reply } as never;
      const res = await t.http.post('/api/ai/generate').set(u.auth).send(ask(model)).expect(200);
      expect(res.body).toEqual({
        modelId: model,
        text: 'Hi!',
        usage: { promptTokens: pt, completionTokens: ct, reasoningTokens },
        cost: price,
        chatId: expect.any(String),
      });
      expect(res.headers['server-timing']).toMatch(/app;dur=[\d.]+.*upstream;dur=[\d.]+/);
      expect(p[server].requests).toHaveLength(1);

      expect(await ledgerOf(t, u.user.id)).toEqual({
        credits: 100 - price,
        ledgerSum: 100 - price,
        entries: 2,
      });
      const [entry] = await t.db.query(
        `SELECT amount, description FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
        [u.user.id],
      );
      expect(entry.amount).toBe(-price);
      expect(entry.description).toContain(model);
      expect(Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count)).toBe(0);

      const chat = (await t.http.get(`/api/chats/${res.body.chatId}`).set(u.auth).expect(200)).body
        .data;
      expect(chat.title).toBe('Say hello');
      expect(
        chat.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
      ).toEqual([
        ['USER', 'Say hello'],
        ['ASSISTANT', 'Hi!'],
      ]);
    },
  );

  it('sends max tokens, temperature and top-p upstream; defaults max tokens to 1000', async () => {
    const u = await newUser(t);
    await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send(ask('gpt-4o-mini', { maxTokens: 50, temperature: 0.5, topP: 0.9 }))
      .expect(200);
    await t.http.post('/api/ai/generate').set(u.auth).send(ask('claude-haiku-4-5')).expect(200);
    expect(p.openai.requests[0].body).toEqual(
      expect.objectContaining({ max_tokens: 50, temperature: 0.5, top_p: 0.9 }),
    );
    expect(p.anthropic.requests[0].body.max_tokens).toBe(1000);
    expect(p.anthropic.requests[0].body.system).toBeDefined();
  });

  it('charges a reply once even when saving its exchange fails: the settlement is redone alone', async () => {
    const u = await newUser(t);
    p.openai.reply = { text: 'Hi!', usage: { prompt_tokens: 600, completion_tokens: 300 } };
    // Saving this user's messages fails inside the settlement statement, which rolls back whole.
    await t.db.query(`
      CREATE FUNCTION refuse_messages() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW."userId" = '${u.user.id}' THEN RAISE EXCEPTION 'messages unavailable'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_messages BEFORE INSERT ON messages
        FOR EACH ROW EXECUTE FUNCTION refuse_messages();`);
    try {
      const res = await t.http.post('/api/ai/generate').set(u.auth).send(ask('gpt-4o'));
      expect(res.status).toBe(500);
    } finally {
      await t.db.query('DROP TRIGGER refuse_messages ON messages; DROP FUNCTION refuse_messages()');
    }
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 91, ledgerSum: 91, entries: 2 });
    const holds = await t.db.query('SELECT 1 FROM credit_holds WHERE "userId" = $1', [u.user.id]);
    expect(holds).toHaveLength(0);
    const chats = await t.db.query('SELECT 1 FROM chats WHERE "userId" = $1', [u.user.id]);
    expect(chats).toHaveLength(0);
  });

  it('continues a chat: appends only the last message and the reply', async () => {
    const u = await newUser(t);
    const chat = await newChat(t, u, { title: 'Ongoing', messages: ['first', 'answer'] });
    p.openai.reply = { text: 'second answer' };
    const messages = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'answer' },
      { role: 'user', content: 'second' },
    ];
    const res = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId: 'gpt-4o', messages, chatId: chat.id })
      .expect(200);
    expect(res.body.chatId).toBe(chat.id);
    const saved = (await t.http.get(`/api/chats/${chat.id}`).set(u.auth)).body.data.messages;
    expect(saved.map((m: { content: string }) => m.content)).toEqual([
      'first',
      'answer',
      'second',
      'second answer',
    ]);
  });

  it("answers 404 for another user's chat, without calling upstream or holding credits", async () => {
    const owner = await newUser(t);
    const other = await newUser(t);
    const chat = await newChat(t, owner);
    await t.http
      .post('/api/ai/generate')
      .set(other.auth)
      .send(ask('gpt-4o', { chatId: chat.id }))
      .expect(404);
    expect(p.openai.requests).toHaveLength(0);
    expect((await ledgerOf(t, other.user.id)).credits).toBe(100);
  });

  it("charges a member's call in a shared chat to the team's pool, or with teamId null to their own credits", async () => {
    const owner = await newUser(t);
    const member = await newUser(t);
    const outsider = await newUser(t);
    const team = await newTeam(t, owner, { members: [[member, 'MEMBER']] });
    const chat = await newChat(t, owner, { title: 'Shared', messages: ['hello'] });
    await t.http
      .put(`/api/chats/${chat.id}/team`)
      .set(owner.auth)
      .send({ teamId: team.id })
      .expect(200);
    p.openai.reply = { usage: { prompt_tokens: 500, completion_tokens: 500 } }; // 10 credits on gpt-4o
    const body = {
      modelId: 'gpt-4o',
      chatId: chat.id,
      messages: [{ role: 'user', content: 'me too' }],
    };
    await fundPool(t, team.id, 50);
    await t.http.post('/api/ai/generate').set(member.auth).send(body).expect(200);
    await t.http.post('/api/ai/generate').set(outsider.auth).send(body).expect(404);
    const [pool] = await t.db.query('SELECT credits FROM teams WHERE id = $1', [team.id]);
    expect(pool.credits).toBe(40);
    expect((await ledgerOf(t, member.user.id)).credits).toBe(100);
    await t.http
      .post('/api/ai/generate')
      .set(member.auth)
      .send({ ...body, teamId: null })
      .expect(200);
    expect((await ledgerOf(t, member.user.id)).credits).toBe(90);
    expect((await ledgerOf(t, owner.user.id)).credits).toBe(100);
    expect((await ledgerOf(t, outsider.user.id)).credits).toBe(100);
    const saved = (await t.http.get(`/api/chats/${chat.id}`).set(owner.auth)).body.data.messages;
    expect(saved.map((m: { content: string }) => m.content)).toContain('me too');
  });

  it('titles a new chat with the first 50 characters of the first message', async () => {
    const u = await newUser(t);
    const long = 'x'.repeat(60);
    const res = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId: 'gpt-4o-mini', messages: [{ role: 'user', content: long }] })
      .expect(200);
    const chat = (await t.http.get(`/api/chats/${res.body.chatId}`).set(u.auth)).body.data;
    expect(chat.title).toBe('x'.repeat(50));
  });

  it('needs a session (401), a listed model (400 UNKNOWN_MODEL) and at most 200 000 characters (413)', async () => {
    await t.http.post('/api/ai/generate').send(ask('gpt-4o')).expect(401);
    const u = await newUser(t);
    const unknown = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send(ask('gpt-99'))
      .expect(400);
    expect(unknown.body).toEqual({ error: expect.any(String), code: 'UNKNOWN_MODEL' });
    const big = { modelId: 'gpt-4o', messages: [{ role: 'user', content: 'y'.repeat(200_001) }] };
    const tooBig = await t.http.post('/api/ai/generate').set(u.auth).send(big).expect(413);
    expect(tooBig.body.code).toBe('PAYLOAD_TOO_LARGE');
    for (const bad of [
      { ...ask('gpt-4o'), maxTokens: 1001 },
      { ...ask('gpt-4o'), temperature: 3 },
      { ...ask('gpt-4o'), topP: 1.5 },
      { modelId: 'gpt-4o', messages: [{ role: 'user', content: '' }] },
    ]) {
      await t.http.post('/api/ai/generate').set(u.auth).send(bad).expect(400);
    }
    expect(p.openai.requests).toHaveLength(0);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
  });

  it.each([
    [401, 'INVALID_API_KEY', 401, 1],
    [429, 'RATE_LIMIT', 429, 3],
    [500, 'SERVICE_UNAVAILABLE', 500, 3],
    [503, 'UNKNOWN_ERROR', 500, 3],
    [400, 'UNKNOWN_ERROR', 500, 1],
  ])(
    'upstream %i → %s %i after %i attempt(s), nothing charged',
    async (status, code, answer, attempts) => {
      const u = await newUser(t);
      p.anthropic.reply = { status, retryAfter: '0' };
      const res = await t.http.post('/api/ai/generate').set(u.auth).send(ask('claude-haiku-4-5'));
      expect(res.status).toBe(answer);
      expect(res.body).toEqual({ error: expect.any(String), code });
      expect(JSON.stringify(res.body)).not.toMatch(/sk-ant|anthropic_error|overloaded/i);
      expect(p.anthropic.requests).toHaveLength(attempts);
      expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
      expect(Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count)).toBe(0);
    },
  );
});
