import {
  UPSTREAM_ROUTER,
  type UpstreamRouting,
} from '../../../src/upstreams/upstream-router.types';
import { SecretBox } from '../../../src/common/crypto/secret-box';
import { OpenAiTestServer } from '../../servers/openai-server';
import { newUser, type TestUser } from '../../support/factories';
import { captureStdoutLogs } from '../../support/log-capture';
import { createTestApp, TEST_ENCRYPTION_KEY, type TestApp } from '../../support/test-app';

const ENV_KEY = 'sk-env-openai-0123456789';
const KEY_1 = 'sk-upstream-first-0123456789';
const KEY_2 = 'sk-upstream-second-0123456789';
const GPT = { id: 'gpt-4o-mini', providerId: 'openai' as const };

/**
 * The upstream admin routes: CRUD, validation, the environment's read-only upstream, and `/test`
 * against a local OpenAI server. Keys must never appear in an answer, the audit log or the log
 * lines. The router they feed is tested in upstreams-router.e2e-spec.ts.
 */
describe('Upstreams admin', () => {
  let t: TestApp;
  let openai: OpenAiTestServer;
  let admin: TestUser;
  let user: TestUser;
  let router: UpstreamRouting;
  const logs = captureStdoutLogs();
  const created: Record<string, string> = {};

  const post = (body: object) => t.http.post('/api/admin/upstreams').set(admin.auth).send(body);
  const counts = async () => {
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM upstreams`);
    const [{ a }] = await t.db.query(`SELECT count(*)::int AS a FROM audit_events`);
    return { n, a };
  };

  beforeAll(async () => {
    openai = new OpenAiTestServer();
    await openai.start();
    t = await createTestApp({
      OPENAI_API_KEY: ENV_KEY,
      OPENAI_BASE_URL: openai.url,
      LOG_LEVEL: 'trace',
    });
    admin = await newUser(t, { role: 'ADMIN' });
    user = await newUser(t);
    router = t.app.get<UpstreamRouting>(UPSTREAM_ROUTER);
  });
  afterAll(async () => {
    await t.close();
    await openai.stop();
    logs.stop();
  });

  it('lists the environment upstream read-only, and refuses to change or delete it', async () => {
    const res = await t.http.get('/api/admin/upstreams').set(admin.auth).expect(200);
    expect(res.body.data).toEqual([
      expect.objectContaining({
        id: 'env:openai',
        source: 'environment',
        provider: 'openai',
        baseUrl: openai.url,
        hasApiKey: true,
        state: 'healthy',
        createdAt: null,
      }),
    ]);
    const patch = await t.http
      .patch('/api/admin/upstreams/env:openai')
      .set(admin.auth)
      .send({ weight: 2 })
      .expect(409);
    expect(patch.body.code).toBe('UPSTREAM_READ_ONLY');
    await t.http.delete('/api/admin/upstreams/env:openai').set(admin.auth).expect(409);
    await t.http.get('/api/admin/upstreams/env:openai').set(admin.auth).expect(200);
    await t.http.get('/api/admin/upstreams/env:nope').set(admin.auth).expect(400);
  });

  it('answers 403 to a user who is not an admin', async () => {
    await t.http.get('/api/admin/upstreams').set(user.auth).expect(403);
    await t.http.post('/api/admin/upstreams').set(user.auth).send({}).expect(403);
    await t.http.post('/api/admin/upstreams/env:openai/test').set(user.auth).expect(403);
  });

  it('creates, reads, changes and deletes an upstream; the key is sealed and never answered', async () => {
    const res = await post({
      provider: 'openai',
      name: 'primary',
      baseUrl: openai.url,
      apiKey: KEY_1,
      models: ['gpt-4o-mini'],
      modelMap: { 'gpt-4o-mini': 'gpt-4o-mini-2024-07-18' },
      priority: 10,
      weight: 3,
      rpm: 600,
    }).expect(201);
    created.primary = res.body.id;
    expect(res.body).toMatchObject({
      source: 'table',
      name: 'primary',
      hasApiKey: true,
      priority: 10,
      weight: 3,
      rpm: 600,
      tpm: null,
      enabled: true,
      state: 'healthy',
    });
    const [row] = await t.db.query(`SELECT "apiKeySealed" FROM upstreams WHERE id = $1`, [
      res.body.id,
    ]);
    expect(row.apiKeySealed).not.toContain(KEY_1);
    const sealedBefore = row.apiKeySealed as string;

    await t.http.get(`/api/admin/upstreams/${created.primary}`).set(admin.auth).expect(200);
    const patched = await t.http
      .patch(`/api/admin/upstreams/${created.primary}`)
      .set(admin.auth)
      .send({ apiKey: KEY_2, weight: 2 })
      .expect(200);
    expect(patched.body).toMatchObject({ weight: 2, hasApiKey: true, priority: 10 });
    const [after] = await t.db.query(`SELECT "apiKeySealed" FROM upstreams WHERE id = $1`, [
      res.body.id,
    ]);
    expect(after.apiKeySealed).not.toEqual(sealedBefore);
    expect(
      new SecretBox(TEST_ENCRYPTION_KEY).open(
        after.apiKeySealed,
        `upstream:${res.body.id}:api-key`,
      ),
    ).toBe(KEY_2);

    const spare = await post({
      provider: 'openai-compatible',
      name: 'spare',
      baseUrl: 'http://127.0.0.1:9/v1',
      models: ['gpt-4o-mini', 'claude-haiku-4-5'],
    }).expect(201);
    expect(spare.body).toMatchObject({ hasApiKey: false, priority: 0, weight: 1 });
    await t.http.delete(`/api/admin/upstreams/${spare.body.id}`).set(admin.auth).expect(200);
    await t.http.get(`/api/admin/upstreams/${spare.body.id}`).set(admin.auth).expect(404);
    await t.http.delete(`/api/admin/upstreams/${spare.body.id}`).set(admin.auth).expect(404);

    const audit = await t.db.query(
      `SELECT action, details::text AS details FROM audit_events WHERE "targetType" = 'upstream' ORDER BY at`,
    );
    expect(audit.map((a: { action: string }) => a.action)).toEqual([
      'upstream.create',
      'upstream.update',
      'upstream.create',
      'upstream.delete',
    ]);
    expect(JSON.parse(audit[1].details)).toMatchObject({
      changed: ['apiKey', 'weight'],
      hasApiKey: true,
    });
    for (const a of audit) for (const k of [KEY_1, KEY_2]) expect(a.details).not.toContain(k);
  });

  it('refuses invalid input with 400 (or a taken name with 409) and changes nothing', async () => {
    const before = await counts();
    const valid = { provider: 'openai', name: 'other', baseUrl: 'https://api.example.com/v1' };
    const bad: [object, string][] = [
      [{ ...valid, provider: 'azure' }, 'VALIDATION_FAILED'],
      [{ ...valid, baseUrl: 'ftp://files.example.com' }, 'VALIDATION_FAILED'],
      [{ ...valid, baseUrl: 'https://user:pw@api.example.com/v1' }, 'VALIDATION_FAILED'],
      [{ ...valid, weight: 0 }, 'VALIDATION_FAILED'],
      [{ ...valid, priority: 1.5 }, 'VALIDATION_FAILED'],
      [{ ...valid, name: 'env:openai' }, 'VALIDATION_FAILED'],
      [{ ...valid, models: 'gpt-4o-mini' }, 'VALIDATION_FAILED'],
      [{ ...valid, modelMap: { 'gpt-4o-mini': 5 } }, 'VALIDATION_FAILED'],
      [{ ...valid, secret: 'x' }, 'VALIDATION_FAILED'],
      [{ ...valid, models: ['no-such-model'] }, 'UNKNOWN_MODEL'],
      [{ ...valid, modelMap: { 'no-such-model': 'x' } }, 'UNKNOWN_MODEL'],
      [{ ...valid, provider: 'anthropic', models: ['gpt-4o-mini'] }, 'VALIDATION_FAILED'],
    ];
    for (const [body, code] of bad) {
      const res = await post(body);
      expect([res.status, res.body.code, body]).toEqual([400, code, body]);
    }
    expect((await post({ ...valid, name: 'primary' }).expect(409)).body.code).toBe('CONFLICT');
    const patch = await t.http
      .patch(`/api/admin/upstreams/${created.primary}`)
      .set(admin.auth)
      .send({ weight: -1 });
    expect(patch.status).toBe(400);
    expect(await counts()).toEqual(before);
    const still = await t.http
      .get(`/api/admin/upstreams/${created.primary}`)
      .set(admin.auth)
      .expect(200);
    expect(still.body.weight).toBe(2);
  });

  it('/test answers success against the OpenAI server, and its 401 with the status; a success clears failing', async () => {
    const good = await t.http
      .post('/api/admin/upstreams/env:openai/test')
      .set(admin.auth)
      .expect(200);
    expect(good.body).toMatchObject({ ok: true, model: 'gpt-4o-mini' });
    expect(typeof good.body.latencyMs).toBe('number');
    expect(openai.requests.at(-1)?.body).toMatchObject({ model: 'gpt-4o-mini' });

    const env = (await router.candidates(GPT)).find((c) => c.id === 'env:openai')!;
    await router.report(env, {
      kind: 'misconfigured',
      status: 401,
      message: 'Incorrect API key',
      latencyMs: 2,
    });
    const failing = await t.http.get('/api/admin/upstreams/env:openai').set(admin.auth).expect(200);
    expect(failing.body).toMatchObject({
      state: 'failing',
      lastError: { status: 401, message: 'Incorrect API key' },
    });

    openai.reply = { status: 401 };
    const bad = await t.http
      .post('/api/admin/upstreams/env:openai/test')
      .set(admin.auth)
      .expect(200);
    expect(bad.body).toMatchObject({ ok: false, status: 401 });
    expect(typeof bad.body.message).toBe('string');
    expect(JSON.stringify(bad.body)).not.toContain(ENV_KEY);
    expect((await t.http.get('/api/admin/upstreams/env:openai').set(admin.auth)).body.state).toBe(
      'failing',
    );

    openai.reply = {};
    await t.http.post('/api/admin/upstreams/env:openai/test').set(admin.auth).expect(200);
    const healthy = await t.http.get('/api/admin/upstreams/env:openai').set(admin.auth).expect(200);
    expect(healthy.body).toMatchObject({ state: 'healthy', consecutiveFailures: 0 });
  });

  it('/test of an upstream serving embedding models only sends one embedding, not a chat call, and reports its 401', async () => {
    const EMBEDDER = 'text-embedding-3-small';
    const res = await post({
      provider: 'openai-compatible',
      name: 'embedder',
      baseUrl: openai.url,
      apiKey: KEY_1,
      models: [EMBEDDER],
      modelMap: { [EMBEDDER]: 'local-embedder' },
    }).expect(201);
    const test = () =>
      t.http.post(`/api/admin/upstreams/${res.body.id}/test`).set(admin.auth).expect(200);

    let from = openai.requests.length;
    const good = await test();
    expect(good.body).toMatchObject({ ok: true, model: EMBEDDER });
    expect(typeof good.body.latencyMs).toBe('number');
    const sent = openai.requests.slice(from);
    expect(sent.map((r) => r.path)).toEqual(['/v1/embeddings']);
    expect(sent[0].body).toMatchObject({ model: 'local-embedder', input: ['ping'] });
    expect(sent[0].headers.authorization).toBe(`Bearer ${KEY_1}`);

    openai.reply = { status: 401 };
    from = openai.requests.length;
    const bad = await test();
    expect(bad.body).toMatchObject({ ok: false, model: EMBEDDER, status: 401 });
    expect(typeof bad.body.message).toBe('string');
    expect(JSON.stringify(bad.body)).not.toContain(KEY_1);
    expect(openai.requests.slice(from).map((r) => r.path)).toEqual(['/v1/embeddings']);
    openai.reply = {};

    // Once it serves a chat model too, the test is a chat call on that model.
    await t.http
      .patch(`/api/admin/upstreams/${res.body.id}`)
      .set(admin.auth)
      .send({ models: [EMBEDDER, 'gpt-4o-mini'] })
      .expect(200);
    from = openai.requests.length;
    expect((await test()).body).toMatchObject({ ok: true, model: 'gpt-4o-mini' });
    expect(openai.requests.slice(from).map((r) => r.path)).toEqual(['/v1/chat/completions']);
    await t.http.delete(`/api/admin/upstreams/${res.body.id}`).set(admin.auth).expect(200);
  });

  it('never wrote a key to the log', () => {
    const out = logs.text();
    // The capture works: the requests above were logged.
    expect(out).toContain('/api/admin/upstreams');
    for (const k of [ENV_KEY, KEY_1, KEY_2]) expect(out).not.toContain(k);
  });
});
