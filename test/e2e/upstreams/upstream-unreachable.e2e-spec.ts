import { keyFor } from '../gateway/gateway-clients.helpers';
import { OpenAiTestServer } from '../../servers/openai-server';
import { newUser, type TestUser } from '../../support/factories';
import { captureStdoutLogs } from '../../support/log-capture';
import { startProviders, type Providers } from '../../support/providers';
import { freePort } from '../../support/spawn-app';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * A model server that is not running: the answer says so (502 UPSTREAM_UNREACHABLE, in each
 * protocol's shape under /v1), the log names the host and the error, nothing is charged, and a
 * second upstream still answers in its place.
 */
describe('an upstream that refuses connections', () => {
  let t: TestApp;
  let p: Providers;
  let u: TestUser;
  let key: string;
  let closed: string;
  let logs: ReturnType<typeof captureStdoutLogs>;

  beforeAll(async () => {
    p = await startProviders();
    closed = `127.0.0.1:${await freePort()}`;
    logs = captureStdoutLogs();
    t = await createTestApp({
      ...p.env,
      OPENAI_BASE_URL: `http://${closed}/v1`,
      ANTHROPIC_BASE_URL: `http://${closed}`,
      LOG_LEVEL: 'warn',
    });
    u = await newUser(t, { credits: 100 });
    key = (await keyFor(t, u)).key;
  });
  afterAll(async () => {
    logs?.stop();
    await t?.close();
    await p?.stop();
  });

  const balance = async () =>
    (await t.http.get('/api/credits').set(u.auth).expect(200)).body.balance;
  const ask = { messages: [{ role: 'user', content: 'Say hello' }] };

  it('answers 502 UPSTREAM_UNREACHABLE on /api/ai, charges nothing, and logs the host and ECONNREFUSED', async () => {
    const res = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ ...ask, modelId: 'gpt-4o-mini' });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ error: expect.any(String), code: 'UPSTREAM_UNREACHABLE' });
    expect(await balance()).toBe(100);
    expect(logs.text()).toContain(`Outbound request to http://${closed} failed: ECONNREFUSED`);
  });

  it('answers it in OpenAI’s shape on /v1/chat/completions and /v1/responses', async () => {
    const auth = { Authorization: `Bearer ${key}` };
    const chat = await t.http
      .post('/v1/chat/completions')
      .set(auth)
      .send({ ...ask, model: 'gpt-4o-mini' });
    const responses = await t.http
      .post('/v1/responses')
      .set(auth)
      .send({ model: 'gpt-4o-mini', input: 'Say hello' });
    for (const res of [chat, responses]) {
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'upstream_unreachable' });
    }
  });

  it('answers it in Anthropic’s shape on /v1/messages', async () => {
    const res = await t.http
      .post('/v1/messages')
      .set({ 'x-api-key': key })
      .send({ ...ask, model: 'claude-haiku-4-5', max_tokens: 100 });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ type: 'error', error: { type: 'api_error' } });
  });

  it('still answers from a second upstream of the model', async () => {
    const backup = await new OpenAiTestServer().start();
    try {
      const admin = await newUser(t, { role: 'ADMIN' });
      await t.http
        .post('/api/admin/upstreams')
        .set(admin.auth)
        .send({
          provider: 'openai-compatible',
          name: 'backup',
          baseUrl: backup.url,
          apiKey: 'sk-backup',
          priority: -1,
        })
        .expect(201);
      const res = await t.http
        .post('/api/ai/generate')
        .set(u.auth)
        .send({ ...ask, modelId: 'gpt-4o-mini' });
      expect(res.status).toBe(200);
      expect(res.body.text).toBe('Hello from the test model.');
      expect(backup.requests).toHaveLength(1);
    } finally {
      await backup.stop();
    }
  });
});

describe('CORS preflights and /api/route-access', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp({ CORS_ORIGINS: 'https://app.example' })));
  afterAll(() => t.close());

  const preflight = (origin: string) =>
    t.http
      .options('/api/chats')
      .set('Origin', origin)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type');

  it('refuses a preflight from an origin CORS_ORIGINS does not list with 403 and no CORS headers', async () => {
    const res = await preflight('https://evil.example');
    expect(res.status).toBe(403);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const allowed = await preflight('https://app.example');
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example');
  });

  it('documents accept-language of /api/route-access as optional, and answers without it', async () => {
    const doc = (await t.http.get('/api/docs-json').expect(200)).body;
    const header = doc.paths['/api/route-access'].get.parameters.find(
      (x: { in: string; name: string }) => x.in === 'header' && x.name === 'accept-language',
    );
    expect(header.required).toBe(false);
    const res = await t.http.get('/api/route-access').query({ path: '/dashboard' }).expect(200);
    expect(res.body).toEqual({ action: 'redirect', location: '/en/dashboard' });
  });
});

describe('CORS off (CORS_ORIGINS unset)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp({ CORS_ORIGINS: '' })));
  afterAll(() => t.close());

  it('answers a preflight 403 without CORS headers, never 404', async () => {
    const res = await t.http
      .options('/api/ai/generate')
      .set('Origin', 'http://localhost:5173')
      .set('Access-Control-Request-Method', 'POST');
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
