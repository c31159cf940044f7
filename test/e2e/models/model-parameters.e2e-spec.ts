import { randomUUID } from 'node:crypto';
import { startProviders, type Providers } from '../../support/providers';
import {
  ledgerOf,
  newChat,
  newTeam,
  newUser,
  type TestUser,
  fundPool,
} from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

// Request > chat settings > preferences > default, as each provider received it.
describe('Custom model parameters: precedence, per-provider rules, what the SDK sent', () => {
  let t: TestApp;
  let p: Providers;
  const hello = [{ role: 'user', content: 'Say hello' }];

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp(p.env);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  const prefs = (u: TestUser, body: object) =>
    t.http.put('/api/user/preferences').set(u.auth).send(body).expect(200);
  const patch = (u: TestUser, chatId: string, body: object) =>
    t.http.patch(`/api/chats/${chatId}`).set(u.auth).send(body);
  const generate = (u: TestUser, body: object) =>
    t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ messages: hello, ...body });
  const sentToOpenAi = () => p.openai.requests.at(-1)?.body;

  it('a new user: preferences feed generate (model, temperature, maxTokens, system prompt)', async () => {
    const u = await newUser(t);
    await prefs(u, {
      defaultModelId: 'gpt-4o-mini',
      temperature: 0.7,
      maxTokens: 300,
      systemPrompt: 'Answer in French.',
    });
    await generate(u, {}).expect(200);
    expect(sentToOpenAi()).toEqual(
      expect.objectContaining({
        model: 'gpt-4o-mini',
        temperature: 0.7,
        max_tokens: 300,
        messages: [{ role: 'system', content: 'Answer in French.' }, ...hello],
      }),
    );
    expect(sentToOpenAi()).not.toHaveProperty('top_p');
  });

  it('a chat with a low temperature: the provider receives it; the request still wins', async () => {
    const u = await newUser(t);
    await prefs(u, { defaultModelId: 'gpt-4o', temperature: 0.9, topP: 0.5 });
    const chat = await newChat(t, u);
    const res = await patch(u, chat.id, { settings: { temperature: 0.1, stop: ['END'] } });
    expect(res.status).toBe(200);
    expect(res.body.data.settings).toEqual({ temperature: 0.1, stop: ['END'] });

    await generate(u, { chatId: chat.id }).expect(200);
    expect(sentToOpenAi()).toEqual(
      expect.objectContaining({ model: 'gpt-4o', temperature: 0.1, top_p: 0.5, stop: ['END'] }),
    );
    await generate(u, { chatId: chat.id, temperature: 1.3 }).expect(200);
    expect(sentToOpenAi()).toEqual(expect.objectContaining({ temperature: 1.3, stop: ['END'] }));
  });

  it('resolves each field on its own: request > chat > preferences > default', async () => {
    const u = await newUser(t);
    await prefs(u, { defaultModelId: 'gpt-4o-mini', temperature: 0.4, topP: 0.4, maxTokens: 400 });
    const chat = await newChat(t, u);
    await patch(u, chat.id, {
      settings: { modelId: 'gpt-4o', temperature: 0.2, presencePenalty: 0.5 },
    }).expect(200);
    await generate(u, { chatId: chat.id, frequencyPenalty: -1, presencePenalty: 1 }).expect(200);
    const sent = sentToOpenAi();
    expect(sent).toEqual(
      expect.objectContaining({
        model: 'gpt-4o', // chat
        temperature: 0.2, // chat over preferences
        top_p: 0.4, // preferences
        max_tokens: 400, // preferences
        presence_penalty: 1, // request over chat
        frequency_penalty: -1, // request
      }),
    );
    expect(sent).not.toHaveProperty('stop'); // set nowhere: not sent
    // Nothing stored anywhere but the model in the request: the default maxTokens, nothing else.
    const bare = await newUser(t);
    await generate(bare, { modelId: 'gpt-4o' }).expect(200);
    expect(sentToOpenAi()).toEqual({
      model: 'gpt-4o',
      messages: hello,
      max_tokens: 1000,
      stream: false,
    });
  });

  it('answers 400 naming modelId when no layer names a model; nothing held or sent', async () => {
    const u = await newUser(t);
    await prefs(u, { temperature: 0.3 });
    const res = await generate(u, {}).expect(400);
    expect(res.body).toEqual({
      error: expect.stringContaining('modelId'),
      code: 'VALIDATION_FAILED',
    });
    const stream = await t.http.post('/api/ai/stream').set(u.auth).send({ messages: hello });
    expect(stream.status).toBe(400);
    expect(p.openai.requests).toHaveLength(0);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(100);
  });

  it('refuses a parameter the request sets that the provider does not support: UNSUPPORTED_PARAMETER', async () => {
    const u = await newUser(t);
    const claude = await generate(u, { modelId: 'claude-haiku-4-5', temperature: 0.5 }).expect(400);
    expect(claude.body).toEqual({
      error: expect.stringMatching(/temperature.*claude-haiku-4-5/),
      code: 'UNSUPPORTED_PARAMETER',
    });
    // Also when the chat's settings set the same parameter: the request's own value is checked.
    const chat = await newChat(t, u);
    await patch(u, chat.id, { settings: { presencePenalty: 0.4 } }).expect(200);
    const own = await generate(u, {
      modelId: 'claude-haiku-4-5',
      chatId: chat.id,
      presencePenalty: 0.1,
    }).expect(400);
    expect(own.body.code).toBe('UNSUPPORTED_PARAMETER');
    expect(own.body.error).toContain('from the request');
    const zh = await generate(u, { modelId: 'claude-haiku-4-5', topP: 0.5 }).set('x-locale', 'zh');
    expect(zh.body).toEqual({ error: '该模型不支持其中一个参数。', code: 'UNSUPPORTED_PARAMETER' });
    expect(p.anthropic.requests).toHaveLength(0);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(100);
  });

  it('sends Anthropic stop_sequences and the system prompt; Gemini every sampling field', async () => {
    const u = await newUser(t);
    await generate(u, {
      modelId: 'claude-haiku-4-5',
      stop: ['###'],
      systemPrompt: 'Be kind.',
      maxTokens: 50,
    }).expect(200);
    expect(p.anthropic.requests[0].body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 50,
      stop_sequences: ['###'],
      system: 'Be kind.',
      messages: hello,
      stream: false,
    });
    await generate(u, {
      modelId: 'gemini-2.5-flash',
      temperature: 1.5,
      topP: 0.8,
      presencePenalty: 0.3,
      frequencyPenalty: -0.3,
      stop: ['a', 'b', 'c', 'd'],
    }).expect(200);
    expect(p.gemini.requests[0].body.generationConfig).toEqual(
      expect.objectContaining({
        temperature: 1.5,
        topP: 0.8,
        presencePenalty: 0.3,
        frequencyPenalty: -0.3,
        stopSequences: ['a', 'b', 'c', 'd'],
      }),
    );
  });

  it('takes the same parameters on /api/ai/stream and /api/ai/chat', async () => {
    const u = await newUser(t);
    await prefs(u, { defaultModelId: 'gpt-4o-mini' });
    await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .send({ messages: hello, temperature: 0.25, stop: ['x'] })
      .expect(200);
    expect(sentToOpenAi()).toEqual(
      expect.objectContaining({ model: 'gpt-4o-mini', temperature: 0.25, stop: ['x'] }),
    );
    const parts = [{ type: 'text', text: 'Say hello' }];
    await t.http
      .post('/api/ai/chat')
      .set(u.auth)
      .send({
        id: randomUUID(),
        messages: [{ id: 'm1', role: 'user', parts }],
        topP: 0.3,
        frequencyPenalty: 1.5,
      })
      .expect(200);
    expect(sentToOpenAi()).toEqual(
      expect.objectContaining({ model: 'gpt-4o-mini', top_p: 0.3, frequency_penalty: 1.5 }),
    );
  });

  it('holds the worst case of the effective maxTokens', async () => {
    // gpt-4o: 0.00001 per token. Default 1000 tokens hold 11 credits; preferred 100 hold 2.
    const u = await newUser(t, { credits: 5 });
    expect((await generate(u, { modelId: 'gpt-4o' }).expect(402)).body.code).toBe(
      'INSUFFICIENT_CREDITS',
    );
    await prefs(u, { maxTokens: 100 });
    p.openai.reply = { usage: { prompt_tokens: 10, completion_tokens: 20 } };
    await generate(u, { modelId: 'gpt-4o' }).expect(200);
    expect(sentToOpenAi().max_tokens).toBe(100);
  });

  it('answers SSE from /api/ai/stream for streamFormat "sse" unless Accept names a format', async () => {
    const u = await newUser(t);
    await prefs(u, { defaultModelId: 'gpt-4o-mini', streamFormat: 'sse' });
    const sse = await t.http.post('/api/ai/stream').set(u.auth).send({ messages: hello });
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(sse.text).toContain('event: done');
    const text = await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .set('Accept', 'text/plain')
      .send({ messages: hello });
    expect(text.headers['content-type']).toMatch(/^text\/plain/);
  });

  describe('PATCH /api/chats/{id} {settings}', () => {
    it('checks settings against their model, stores nothing on refusal, and clears with {}', async () => {
      const u = await newUser(t);
      const chat = await newChat(t, u);
      const cases: [object, string, string][] = [
        [{ modelId: 'gpt-0' }, 'VALIDATION_FAILED', 'settings.modelId'],
        [{ modelId: 'claude-haiku-4-5', temperature: 0.5 }, 'UNSUPPORTED_PARAMETER', 'temperature'],
        [{ temperature: 3 }, 'VALIDATION_FAILED', 'temperature'],
        [{ stop: ['1', '2', '3', '4', '5'] }, 'VALIDATION_FAILED', 'stop'],
        [{ systemPrompt: 's'.repeat(4001) }, 'VALIDATION_FAILED', 'systemPrompt'],
        [{ topK: 3 }, 'VALIDATION_FAILED', 'topK'],
      ];
      for (const [settings, code, field] of cases) {
        const res = await patch(u, chat.id, { settings }).expect(400);
        expect(res.body).toEqual({ success: false, error: expect.any(String), code });
        expect(res.body.error).toContain(field);
      }
      await patch(u, chat.id, {}).expect(400);
      const [row] = await t.db.query('SELECT settings FROM chats WHERE id = $1', [chat.id]);
      expect(row.settings).toBeNull();

      const ok = await patch(u, chat.id, {
        title: 'Tuned',
        settings: { modelId: 'claude-haiku-4-5', stop: ['##'], systemPrompt: 'Short.' },
      }).expect(200);
      expect(ok.body.data).toEqual(
        expect.objectContaining({
          title: 'Tuned',
          settings: { modelId: 'claude-haiku-4-5', stop: ['##'], systemPrompt: 'Short.' },
        }),
      );
      const listed = (await t.http.get('/api/chats').set(u.auth).expect(200)).body.data;
      expect(listed[0].settings).toEqual(ok.body.data.settings);
      await patch(u, chat.id, { settings: {} }).expect(200);
      expect((await t.http.get(`/api/chats/${chat.id}`).set(u.auth)).body.data.settings).toEqual(
        {},
      );
    });

    it("answers 404 for another user's chat and changes nothing", async () => {
      const owner = await newUser(t);
      const other = await newUser(t);
      const chat = await newChat(t, owner);
      const res = await patch(other, chat.id, { settings: { temperature: 0.1 } }).expect(404);
      expect(res.body.code).toBe('NOT_FOUND');
      await generate(other, { modelId: 'gpt-4o', chatId: chat.id }).expect(404);
      const [row] = await t.db.query('SELECT settings FROM chats WHERE id = $1', [chat.id]);
      expect(row.settings).toBeNull();
    });

    it("team chats: members' replies follow the chat's settings; only OWNER/ADMIN change them", async () => {
      const owner = await newUser(t);
      const admin = await newUser(t);
      const member = await newUser(t);
      const team = await newTeam(t, owner, {
        members: [
          [admin, 'ADMIN'],
          [member, 'MEMBER'],
        ],
      });
      await fundPool(t, team.id); // the pool pays for calls in the team's chat
      const chat = await newChat(t, owner, { teamId: team.id });
      await patch(admin, chat.id, { settings: { modelId: 'gpt-4o', temperature: 0.15 } }).expect(
        200,
      );
      const refused = await patch(member, chat.id, { settings: { temperature: 2 } }).expect(403);
      expect(refused.body.code).toBe('FORBIDDEN');
      // The member's own preferences fill what the chat leaves open.
      await prefs(member, { defaultModelId: 'gpt-4o-mini', maxTokens: 200 });
      await generate(member, { chatId: chat.id }).expect(200);
      expect(sentToOpenAi()).toEqual(
        expect.objectContaining({ model: 'gpt-4o', temperature: 0.15, max_tokens: 200 }),
      );
      const read = await t.http.get(`/api/chats/${chat.id}`).set(member.auth).expect(200);
      expect(read.body.data.settings).toEqual({ modelId: 'gpt-4o', temperature: 0.15 });
    });
  });
});
