import { providerEnv } from '../../support/providers';
import { newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const DEFAULTS = {
  locale: null,
  theme: 'system',
  defaultModelId: null,
  temperature: null,
  topP: null,
  maxTokens: 1000,
  systemPrompt: null,
  streamFormat: 'text',
};

// Keys make the catalogue's models available; no provider is called in this file.
const unused = { url: 'http://127.0.0.1:9' };

describe('Preferences: GET/PUT /api/user/preferences', () => {
  let t: TestApp;
  let ada: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    t = await createTestApp(providerEnv({ openai: unused, anthropic: unused, gemini: unused }));
    ada = await newUser(t);
    bob = await newUser(t);
  });
  afterAll(() => t.close());

  const get = (u: TestUser) => t.http.get('/api/user/preferences').set(u.auth);
  const put = (u: TestUser, body: object) =>
    t.http.put('/api/user/preferences').set(u.auth).send(body);

  it('answers the defaults when nothing is stored', async () => {
    expect((await get(ada).expect(200)).body).toEqual(DEFAULTS);
  });

  it('stores every field, answers it, and keeps it per user', async () => {
    const all = {
      locale: 'zh',
      theme: 'dark',
      defaultModelId: 'gpt-4o-mini',
      temperature: 0.2,
      topP: 0.9,
      maxTokens: 300,
      systemPrompt: 'Answer in one sentence.',
      streamFormat: 'sse',
    };
    expect((await put(ada, all).expect(200)).body).toEqual(all);
    expect((await get(ada).expect(200)).body).toEqual(all);
    expect((await get(bob).expect(200)).body).toEqual(DEFAULTS);
  });

  it('replaces the document: fields left out or null go back to their defaults', async () => {
    await put(ada, { theme: 'light', systemPrompt: null }).expect(200);
    expect((await get(ada).expect(200)).body).toEqual({ ...DEFAULTS, theme: 'light' });
    const [row] = await t.db.query('SELECT preferences FROM users WHERE id = $1', [ada.user.id]);
    expect(row.preferences).toEqual({ theme: 'light' });
  });

  it.each([
    ['defaultModelId', { defaultModelId: 'gpt-0-imaginary' }],
    ['temperature', { temperature: 2.5 }],
    ['temperature', { temperature: -0.1 }],
    ['topP', { topP: 1.5 }],
    ['maxTokens', { maxTokens: 1001 }],
    ['maxTokens', { maxTokens: 0 }],
    ['systemPrompt', { systemPrompt: 'x'.repeat(4001) }],
    ['locale', { locale: 'fr' }],
    ['theme', { theme: 'blue' }],
    ['streamFormat', { streamFormat: 'ndjson' }],
    ['colour', { colour: 'red' }],
  ])('refuses a bad %s with 400 naming it, storing nothing', async (field, body) => {
    await put(bob, { theme: 'dark' }).expect(200);
    const res = await put(bob, body).set('x-locale', 'en').expect(400);
    expect(res.body).toEqual({ error: expect.any(String), code: 'VALIDATION_FAILED' });
    expect(res.body.error).toContain(field);
    expect((await get(bob).expect(200)).body.theme).toBe('dark');
  });

  it("refuses a preferred value the default model's provider does not take", async () => {
    const res = await put(bob, { defaultModelId: 'claude-haiku-4-5', temperature: 0.5 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'temperature (from your preferences) is not supported by claude-haiku-4-5',
      code: 'UNSUPPORTED_PARAMETER',
    });
    // Without a default model, the values are checked when a request picks one.
    await put(bob, { temperature: 0.5 }).expect(200);
  });

  it('accepts a systemPrompt of exactly 4000 characters', async () => {
    const systemPrompt = 'y'.repeat(4000);
    expect((await put(bob, { systemPrompt }).expect(200)).body.systemPrompt).toBe(systemPrompt);
  });

  it('requires a session', async () => {
    await t.http.get('/api/user/preferences').expect(401);
    await t.http.put('/api/user/preferences').send({ theme: 'dark' }).expect(401);
  });

  describe('the stored locale is the language of errors when the request names none', () => {
    const badChat = (u: TestUser) => t.http.post('/api/chats').set(u.auth).send({ title: '' });

    beforeAll(async () => {
      await put(ada, { locale: 'zh' }).expect(200);
      await put(bob, {}).expect(200);
    });

    it('answers in Chinese for a user who chose zh, English otherwise', async () => {
      expect((await badChat(ada).expect(400)).body.error).toMatch(/[\u4e00-\u9fff]/);
      expect((await badChat(bob).expect(400)).body.error).not.toMatch(/[\u4e00-\u9fff]/);
      const res = await t.http.get('/api/chats/00000000-0000-4000-8000-000000000000').set(ada.auth);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatch(/[\u4e00-\u9fff]/);
    });

    it('beats Accept-Language, but not a locale the request names', async () => {
      const zh = /[\u4e00-\u9fff]/;
      expect((await badChat(ada).set('Accept-Language', 'en').expect(400)).body.error).toMatch(zh);
      expect((await badChat(ada).set('x-locale', 'en').expect(400)).body.error).not.toMatch(zh);
      expect((await badChat(ada).query({ locale: 'en' }).expect(400)).body.error).not.toMatch(zh);
      expect((await badChat(bob).set('Accept-Language', 'zh').expect(400)).body.error).toMatch(zh);
    });

    it('applies at once after a change (the session reads it on every request)', async () => {
      await put(ada, { locale: 'en' }).expect(200);
      expect((await badChat(ada).expect(400)).body.error).not.toMatch(/[\u4e00-\u9fff]/);
    });
  });
});
