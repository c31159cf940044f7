import { ModelCatalogue } from '../../../src/models/model-catalogue';
import { SecretBox } from '../../../src/common/crypto/secret-box';
import { MetricsService } from '../../../src/metrics/metrics.service';
import { UpstreamMetrics } from '../../../src/upstreams/upstream-metrics';
import {
  UPSTREAM_ROUTER,
  type UpstreamRouting,
  type UpstreamTarget,
} from '../../../src/upstreams/upstream-router.types';
import { UpstreamStateStore } from '../../../src/upstreams/upstream-state.store';
import { UpstreamTable } from '../../../src/upstreams/upstream-table';
import { Upstream } from '../../../src/upstreams/upstream.entity';
import { UpstreamRouter } from '../../../src/upstreams/upstream.router';
import { USAGE_SYNC_MS, UpstreamUsageMeter } from '../../../src/upstreams/upstream-usage';
import { OpenAiTestServer } from '../../servers/openai-server';
import { newUser, type TestUser } from '../../support/factories';
import { captureStdoutLogs } from '../../support/log-capture';
import { HandClock } from '../../support/hand-clock';
import { createTestApp, TEST_ENCRYPTION_KEY, type TestApp } from '../../support/test-app';
import { sharedConfig } from '../../../src/config/shared.config';
import { upstreamsConfig } from '../../../src/upstreams/upstreams.config';

const ENV_KEY = 'sk-env-openai-0123456789';
const KEY_1 = 'sk-upstream-first-0123456789';
const KEY_2 = 'sk-upstream-second-0123456789';
const GPT = { id: 'gpt-4o-mini', providerId: 'openai' as const };

/**
 * The router fed by the admin routes: which upstreams serve a model and in which order, the
 * cooldowns shared by two routers (separate in-memory copies) on one database, the metrics and
 * the requests and tokens per minute ceilings shared the same way.
 */
describe('Upstream router', () => {
  let t: TestApp;
  let openai: OpenAiTestServer;
  let admin: TestUser;
  let router: UpstreamRouting;
  const clock = new HandClock();
  const logs = captureStdoutLogs();
  const created: Record<string, string> = {};

  const post = (body: object) => t.http.post('/api/admin/upstreams').set(admin.auth).send(body);
  const ok = (latencyMs = 3) => ({ kind: 'ok' as const, latencyMs });
  const e500 = { kind: 'retryable' as const, status: 500, message: 'upstream broke', latencyMs: 4 };

  const meters: UpstreamUsageMeter[] = [];
  /** Every meter's statements have ended: what each instance counted is in the table. */
  const written = () => Promise.all(meters.map((m) => m.drained()));
  /** Another instance's router: its own copies of the rows, the health and the usage. */
  const secondRouter = () => {
    const meter = new UpstreamUsageMeter(t.db, clock);
    meters.push(meter);
    return new UpstreamRouter(
      new UpstreamTable(
        t.db.getRepository(Upstream),
        new SecretBox(TEST_ENCRYPTION_KEY),
        clock,
        t.app.get(ModelCatalogue),
        t.app.get(sharedConfig.KEY),
      ),
      new UpstreamStateStore(t.db, clock),
      new UpstreamMetrics(new MetricsService()),
      meter,
      clock,
      t.app.get(upstreamsConfig.KEY),
    );
  };
  const named = async (r: UpstreamRouting, name: string) =>
    (await r.candidates(GPT)).find((c) => c.name === name) as UpstreamTarget;
  const nextMinute = () => new Date(clock.at.getTime() - (clock.at.getTime() % 60_000) + 60_000);

  beforeAll(async () => {
    openai = new OpenAiTestServer();
    await openai.start();
    t = await createTestApp(
      { OPENAI_API_KEY: ENV_KEY, OPENAI_BASE_URL: openai.url, LOG_LEVEL: 'trace' },
      { clock },
    );
    admin = await newUser(t, { role: 'ADMIN' });
    router = t.app.get<UpstreamRouting>(UPSTREAM_ROUTER);
    meters.push(t.app.get(UpstreamUsageMeter));
    const res = await post({
      provider: 'openai',
      name: 'primary',
      baseUrl: openai.url,
      apiKey: KEY_2,
      models: ['gpt-4o-mini'],
      modelMap: { 'gpt-4o-mini': 'gpt-4o-mini-2024-07-18' },
      priority: 10,
      weight: 3,
    }).expect(201);
    created.primary = res.body.id;
  });
  afterAll(async () => {
    await t.close();
    await openai.stop();
    logs.stop();
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

  it('shares cooldowns between two routers on one database', async () => {
    const second = secondRouter();
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
    expect(Date.parse(listed.body.cooldownUntil)).toBe(clock.at.getTime() - 250 + 30_000);

    // An ok for an upstream already healthy writes nothing (it never failed here: no row).
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

  it('refuses an upstream at its requests-per-minute ceiling, counted by two instances together, until the next minute', async () => {
    await post({
      provider: 'openai',
      name: 'limited',
      baseUrl: openai.url,
      apiKey: KEY_1,
      priority: 20,
      rpm: 3,
    }).expect(201);
    clock.tick(60_000 - (clock.at.getTime() % 60_000));
    const second = secondRouter();
    const mine = await named(router, 'limited');
    expect(router.admit(mine)).toEqual({ admitted: true });
    expect(router.admit(mine)).toEqual({ admitted: true });
    // Each instance adds its counts to the table as it makes them; the other reads them when its
    // copy is older than USAGE_SYNC_MS.
    await written();
    clock.tick(USAGE_SYNC_MS);
    await router.candidates(GPT);
    const theirs = await named(second, 'limited');
    expect(second.admit(theirs)).toEqual({ admitted: true });
    expect(second.admit(theirs)).toEqual({ admitted: false, resetsAt: nextMinute() });
    await written();
    clock.tick(USAGE_SYNC_MS);
    await second.candidates(GPT);
    await router.candidates(GPT);
    expect(router.admit(mine)).toEqual({ admitted: false, resetsAt: nextMinute() });
    await written();
    const rows = await t.db.query(`SELECT requests FROM upstream_usage WHERE "upstreamId" = $1`, [
      mine.id,
    ]);
    expect(rows).toEqual([{ requests: 3 }]);
    const text = await t.app.get(MetricsService).registry.metrics();
    expect(text).toMatch(/upstream_ceiling_skips_total\{upstream="limited"\} 1\b/);

    clock.tick(60_000);
    await router.candidates(GPT);
    expect(router.admit(mine)).toEqual({ admitted: true });
  });

  it('refuses an upstream once the tokens of its answers reach its tokens-per-minute ceiling', async () => {
    await post({
      provider: 'openai',
      name: 'tokens',
      baseUrl: openai.url,
      apiKey: KEY_1,
      tpm: 1000,
    }).expect(201);
    clock.tick(60_000 - (clock.at.getTime() % 60_000));
    const second = secondRouter();
    const mine = await named(router, 'tokens');
    expect(router.admit(mine)).toEqual({ admitted: true });
    router.used(mine, 600);
    expect(router.admit(mine)).toEqual({ admitted: true });
    router.used(mine, 400);
    expect(router.admit(mine)).toMatchObject({ admitted: false });
    // The other instance learns the tokens at its synchronisation.
    await written();
    clock.tick(USAGE_SYNC_MS);
    await router.candidates(GPT);
    expect(second.admit(await named(second, 'tokens'))).toMatchObject({ admitted: false });
    // An upstream without ceilings is neither refused nor counted.
    const primary = await named(router, 'primary');
    expect(router.admit(primary)).toEqual({ admitted: true });
    router.used(primary, 5000);
    await written();
    const rows = await t.db.query(
      `SELECT "upstreamId", tokens FROM upstream_usage WHERE minute = $1`,
      [new Date(nextMinute().getTime() - 60_000)],
    );
    expect(rows).toEqual([{ upstreamId: mine.id, tokens: '1000' }]);
  });

  it('keeps its counts through a failed write and adds them with the next one', async () => {
    clock.tick(60_000 - (clock.at.getTime() % 60_000));
    const mine = await named(router, 'limited');
    await t.db.query(`ALTER TABLE upstream_usage RENAME TO upstream_usage_away`);
    try {
      expect(router.admit(mine)).toEqual({ admitted: true });
      await written();
    } finally {
      await t.db.query(`ALTER TABLE upstream_usage_away RENAME TO upstream_usage`);
    }
    expect(logs.text()).toContain('Synchronising upstream usage failed');
    expect(router.admit(mine)).toEqual({ admitted: true });
    await written();
    const rows = await t.db.query(
      `SELECT requests FROM upstream_usage WHERE "upstreamId" = $1 AND minute = $2`,
      [mine.id, new Date(nextMinute().getTime() - 60_000)],
    );
    expect(rows).toEqual([{ requests: 2 }]);
  });

  it('never wrote a key to the log', () => {
    const out = logs.text();
    expect(out).toContain('/api/admin/upstreams');
    // The router's own lines were captured too.
    expect(out).toContain('Upstream primary: cooling after retryable 500');
    for (const k of [ENV_KEY, KEY_1, KEY_2]) expect(out).not.toContain(k);
  });
});
