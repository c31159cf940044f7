import { ConfigService } from '@nestjs/config';
import { Clock } from '../../src/common/clock/clock';
import { SecretBox } from '../../src/common/crypto/secret-box';
import { MetricsService } from '../../src/metrics/metrics.service';
import { UpstreamMetrics } from '../../src/upstreams/upstream-metrics';
import {
  UPSTREAM_ROUTER,
  type UpstreamRouting,
  type UpstreamTarget,
} from '../../src/upstreams/upstream-router.types';
import { UpstreamStateStore } from '../../src/upstreams/upstream-state.store';
import { UpstreamTable } from '../../src/upstreams/upstream-table';
import { Upstream } from '../../src/upstreams/upstream.entity';
import { UpstreamRouter } from '../../src/upstreams/upstream.router';
import { OpenAiTestServer } from '../servers/openai-server';
import { newUser, type TestUser } from '../support/factories';
import { captureStdoutLogs } from '../support/log-capture';
import { createTestApp, TEST_ENCRYPTION_KEY, type TestApp } from '../support/test-app';

const ENV_KEY = 'sk-env-openai-0123456789';
const KEY_1 = 'sk-upstream-first-0123456789';
const KEY_2 = 'sk-upstream-second-0123456789';
const GPT = { id: 'gpt-4o-mini', providerId: 'openai' as const };

/** A clock the test moves by hand: the routers' caches age by it, not by wall time. */
class StepClock extends Clock {
  at = Date.now();
  now(): Date {
    return new Date(this.at);
  }
  tick(ms: number): void {
    this.at += ms;
  }
}

/**
 * The upstream admin routes (CRUD, validation, the environment's read-only upstream, `/test`
 * against a local OpenAI server) and the router they feed, with two routers on one database for
 * the shared cooldowns. Keys must never appear in an answer, the audit log or the log lines.
 */
describe('Upstreams admin', () => {
  let t: TestApp;
  let openai: OpenAiTestServer;
  let admin: TestUser;
  let user: TestUser;
  let router: UpstreamRouting;
  const clock = new StepClock();
  const logs = captureStdoutLogs();
  const created: Record<string, string> = {};

  const post = (body: object) => t.http.post('/api/admin/upstreams').set(admin.auth).send(body);
  const counts = async () => {
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM upstreams`);
    const [{ a }] = await t.db.query(`SELECT count(*)::int AS a FROM audit_events`);
    return { n, a };
  };
  const ok = (latencyMs = 3) => ({ kind: 'ok' as const, latencyMs });
  const e500 = { kind: 'retryable' as const, status: 500, message: 'upstream broke', latencyMs: 4 };

  beforeAll(async () => {
    openai = new OpenAiTestServer();
    await openai.start();
    t = await createTestApp(
      { OPENAI_API_KEY: ENV_KEY, OPENAI_BASE_URL: openai.url, LOG_LEVEL: 'trace' },
      { clock },
    );
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

  it('routes by priority with the key opened and the model mapped; a disabled upstream is left out', async () => {
    const targets = await router.candidates(GPT);
    expect(targets.map((c) => c.name)).toEqual(['primary', 'env:openai']);
    expect(targets[0]).toMatchObject({
      apiKey: KEY_2,
      upstreamModel: 'gpt-4o-mini-2024-07-18',
      baseUrl: openai.url,
    });
    expect(targets[1]).toMatchObject({
      id: 'env:openai',
      apiKey: ENV_KEY,
      upstreamModel: 'gpt-4o-mini',
    });
    expect(
      (await router.candidates({ id: 'gpt-4o', providerId: 'openai' })).map((c) => c.name),
    ).toEqual(['env:openai']);
    expect(await router.candidates({ id: 'claude-haiku-4-5', providerId: 'anthropic' })).toEqual(
      [],
    );
    await t.http
      .patch(`/api/admin/upstreams/${created.primary}`)
      .set(admin.auth)
      .send({ enabled: false })
      .expect(200);
    expect((await router.candidates(GPT)).map((c) => c.name)).toEqual(['env:openai']);
    await t.http
      .patch(`/api/admin/upstreams/${created.primary}`)
      .set(admin.auth)
      .send({ enabled: true })
      .expect(200);
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

  it('shares cooldowns between two routers on one database', async () => {
    const second = new UpstreamRouter(
      new UpstreamTable(
        t.db.getRepository(Upstream),
        new SecretBox(TEST_ENCRYPTION_KEY),
        clock,
        t.app.get(ConfigService),
      ),
      new UpstreamStateStore(t.db, clock),
      new UpstreamMetrics(new MetricsService()),
      clock,
      t.app.get(ConfigService),
    );
    const names = async (r: UpstreamRouting) => (await r.candidates(GPT)).map((c) => c.name);
    expect(await names(second)).toEqual(['primary', 'env:openai']);
    const primary = (await router.candidates(GPT))[0] as UpstreamTarget;

    // Retry-After on the first router: the second honours it once its copy is renewed.
    await router.report(primary, {
      kind: 'retryable',
      status: 429,
      retryAfterMs: 60_000,
      message: 'slow down',
      latencyMs: 1,
    });
    expect(await names(router)).toEqual(['env:openai', 'primary']);
    clock.tick(250);
    expect(await names(second)).toEqual(['env:openai', 'primary']);
    clock.tick(60_000);
    expect(await names(second)).toEqual(['primary', 'env:openai']);

    // A success ends the counting; then failures counted by both routers add up to a cooldown.
    await second.report(primary, ok());
    await router.report(primary, e500);
    await second.report(primary, e500);
    clock.tick(250);
    expect(await names(router)).toEqual(['primary', 'env:openai']);
    await router.report(primary, e500);
    clock.tick(250);
    expect(await names(second)).toEqual(['env:openai', 'primary']);
    const listed = await t.http
      .get(`/api/admin/upstreams/${primary.id}`)
      .set(admin.auth)
      .expect(200);
    expect(listed.body).toMatchObject({
      state: 'cooling',
      consecutiveFailures: 3,
      lastError: { status: 500 },
    });
    expect(Date.parse(listed.body.cooldownUntil)).toBe(clock.at - 250 + 30_000);

    // An ok for an upstream already healthy writes nothing (its row went with the last /test).
    const env = (await router.candidates(GPT))[0];
    expect(env.id).toBe('env:openai');
    await router.report(env, ok());
    await second.report(env, ok());
    const rows = await t.db.query(
      `SELECT 1 FROM upstream_states WHERE "upstreamId" = 'env:openai'`,
    );
    expect(rows).toEqual([]);
  });

  it('counts attempts, errors and cooldowns by upstream name', async () => {
    const text = await t.app.get(MetricsService).registry.metrics();
    expect(text).toMatch(/upstream_requests_total\{upstream="primary",outcome="retryable"\} [1-9]/);
    expect(text).toMatch(/upstream_errors_total\{upstream="primary",class="server"\} [1-9]/);
    expect(text).toMatch(/upstream_cooldowns_total\{upstream="primary"\} [1-9]/);
    expect(text).toMatch(/upstream_request_duration_seconds_count\{upstream="primary"\} [1-9]/);
    expect(text).toMatch(/upstream_state\{upstream="primary",state="cooling"\} 1/);
    expect(text).not.toContain(KEY_2);
    expect(text).not.toContain(openai.url);
  });

  it('never wrote a key to the log', () => {
    const out = logs.text();
    // The capture works: the requests above were logged.
    expect(out).toContain('/api/admin/upstreams');
    for (const k of [ENV_KEY, KEY_1, KEY_2]) expect(out).not.toContain(k);
  });
});
