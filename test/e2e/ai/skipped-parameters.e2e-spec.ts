import { randomUUID } from 'node:crypto';
import { startProviders, type Providers } from '../../support/providers';
import { ledgerOf, newChat, newUser, type TestUser } from '../../support/factories';
import { parseSse } from '../../support/sse';
import { createTestApp, type TestApp } from '../../support/test-app';

// Inherited parameters (chat settings, preferences) a model does not take are skipped and
// listed; the request's own stay 400. What each provider received is read from its local server.
describe('Inherited parameters a model does not take are skipped, not refused', () => {
  let t: TestApp;
  let p: Providers;
  const hello = [{ role: 'user', content: 'Say hello' }];
  const claude = 'claude-haiku-4-5';

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
  const settings = (u: TestUser, chatId: string, body: object) =>
    t.http.patch(`/api/chats/${chatId}`).set(u.auth).send({ settings: body }).expect(200);
  const generate = (u: TestUser, body: object) =>
    t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ messages: hello, ...body });
  const sentToAnthropic = () => p.anthropic.requests.at(-1)?.body;

  it('a preferred temperature in a Claude chat: 200, no temperature upstream, listed as skipped', async () => {
    const u = await newUser(t);
    await prefs(u, { temperature: 0.9, maxTokens: 300 });
    const chat = await newChat(t, u);
    await settings(u, chat.id, { modelId: claude });

    const res = await generate(u, { chatId: chat.id }).expect(200);
    expect(res.body.skippedParameters).toEqual(['temperature']);
    expect(sentToAnthropic()).toEqual({
      model: claude,
      max_tokens: 300, // the other preferences still apply
      messages: hello,
      stream: false,
    });

    // The stream's `done` event lists it too, and the reply is charged as usual.
    const sse = await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .set('Accept', 'text/event-stream')
      .send({ messages: hello, chatId: chat.id })
      .expect(200);
    const done = parseSse(sse.text).events.find(([name]) => name === 'done')?.[1];
    expect(done).toEqual(
      expect.objectContaining({ chatId: chat.id, skippedParameters: ['temperature'] }),
    );
    expect(sentToAnthropic()).not.toHaveProperty('temperature');
    expect(p.anthropic.requests).toHaveLength(2);
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger.credits).toBeLessThan(100);
    expect(ledger.credits).toBe(ledger.ledgerSum);
  });

  it("the UI chat stream's finish metadata lists the skipped parameters", async () => {
    const u = await newUser(t);
    await prefs(u, { temperature: 0.4, topP: 0.5 });
    const res = await t.http
      .post('/api/ai/chat')
      .set(u.auth)
      .send({
        id: randomUUID(),
        messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Say hello' }] }],
        modelId: claude,
      })
      .expect(200);
    const chunks = res.text
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
      .map((l) => JSON.parse(l.slice(6)));
    const finish = chunks.find((c) => c.type === 'finish');
    expect(finish.messageMetadata.skippedParameters).toEqual(['temperature', 'topP']);
    expect(sentToAnthropic()).not.toHaveProperty('temperature');
    expect(sentToAnthropic()).not.toHaveProperty('top_p');
  });

  it("a chat setting Claude does not take is skipped; the chat's other settings are sent", async () => {
    const u = await newUser(t);
    const chat = await newChat(t, u);
    await settings(u, chat.id, { presencePenalty: 0.4, stop: ['##'], systemPrompt: 'Be brief.' });
    const res = await generate(u, { chatId: chat.id, modelId: claude }).expect(200);
    expect(res.body.skippedParameters).toEqual(['presencePenalty']);
    expect(sentToAnthropic()).toEqual({
      model: claude,
      max_tokens: 1000,
      stop_sequences: ['##'],
      system: 'Be brief.',
      messages: hello,
      stream: false,
    });
  });

  it('the same parameter in the request itself stays 400 UNSUPPORTED_PARAMETER; nothing held or sent', async () => {
    const u = await newUser(t);
    await prefs(u, { temperature: 0.9 });
    const res = await generate(u, { modelId: claude, temperature: 0.9 }).expect(400);
    expect(res.body).toEqual({
      error: expect.stringMatching(/temperature \(from the request\).*claude-haiku-4-5/),
      code: 'UNSUPPORTED_PARAMETER',
    });
    expect(p.anthropic.requests).toHaveLength(0);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(100);
  });

  it('a model that takes the parameter still receives the inherited value; nothing is listed', async () => {
    const u = await newUser(t);
    await prefs(u, { temperature: 0.9 });
    const chat = await newChat(t, u);
    await settings(u, chat.id, { modelId: 'gpt-4o', presencePenalty: 0.4 });
    const res = await generate(u, { chatId: chat.id }).expect(200);
    expect(res.body).not.toHaveProperty('skippedParameters');
    expect(p.openai.requests.at(-1)?.body).toEqual(
      expect.objectContaining({ model: 'gpt-4o', temperature: 0.9, presence_penalty: 0.4 }),
    );
    // An OpenAI reasoning model takes no sampling field: the same inheritance is skipped there.
    const reasoning = await generate(u, { chatId: chat.id, modelId: 'gpt-5-mini' }).expect(200);
    expect(reasoning.body.skippedParameters).toEqual(['temperature', 'presencePenalty']);
    const sent = p.openai.requests.at(-1)?.body;
    expect(sent).not.toHaveProperty('temperature');
    expect(sent).not.toHaveProperty('presence_penalty');
  });
});
