import { MetricsModule } from '../../../src/metrics/metrics.module';
import { deliver, paymentIntentObject, stripeEvent } from '../../servers/stripe-events';
import { newUser } from '../../support/factories';
import { moved, parseMetrics, sample, type Samples } from '../../support/metrics';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { streamThenLeave } from '../../support/walk-away';
import { waitFor } from '../../support/wait';

const TOKEN = 'metrics-token-0123456789';
const SECRET = 'whsec_test_local';

describe('Prometheus metrics', () => {
  let t: TestApp;
  let p: Providers;
  const scrape = async (): Promise<Samples> => {
    const res = await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return parseMetrics(res.text);
  };
  const ask = { modelId: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] };

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({
      ...p.env,
      METRICS_TOKEN: TOKEN,
      STRIPE_WEBHOOK_SECRET: SECRET,
      AI_RETRY_ATTEMPTS: '1',
    });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  it('answers 401 without the token or with another one', async () => {
    const none = await t.http.get('/metrics').expect(401);
    expect(none.body).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED' });
    await t.http.get('/metrics').set('Authorization', 'Bearer wrong-token-0123456789').expect(401);
    await t.http.get('/metrics').set('Authorization', TOKEN).expect(401);
  });

  it('moves the AI, money and HTTP series by exactly one generate', async () => {
    const u = await newUser(t);
    const before = await scrape();
    const res = await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    const after = await scrape();
    const { promptTokens, completionTokens } = res.body.usage;
    expect(moved(before, after, 'ai_tokens_total', { model: 'gpt-4o', kind: 'prompt' })).toBe(
      promptTokens,
    );
    expect(moved(before, after, 'ai_tokens_total', { model: 'gpt-4o', kind: 'completion' })).toBe(
      completionTokens,
    );
    expect(moved(before, after, 'credits_consumed_total', { model: 'gpt-4o' })).toBe(res.body.cost);
    const ai = { provider: 'openai', model: 'gpt-4o' };
    expect(moved(before, after, 'ai_request_duration_seconds_count', ai)).toBe(1);
    // A whole reply has no first token of its own.
    expect(moved(before, after, 'ai_time_to_first_token_seconds_count', ai)).toBe(0);
    const route = { method: 'POST', route: '/api/ai/generate', status_class: '2xx' };
    expect(moved(before, after, 'http_request_duration_seconds_count', route)).toBe(1);
    expect(sample(after, 'credit_holds_open')).toBe(0);
    expect(sample(after, 'ledger_invariant_violations')).toBe(0);
    expect(after.has('db_pool_connections{state="waiting"}')).toBe(true);
    // The default process metrics are there too.
    expect(sample(after, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('labels routes by template, never by raw path', async () => {
    const u = await newUser(t);
    await t.http.get(`/api/users/${u.user.id}`).set(u.auth).expect(200);
    const after = await scrape();
    const keys = [...after.keys()].filter((k) => k.startsWith('http_request_duration_seconds'));
    expect(keys.some((k) => k.includes('route="/api/users/:id"'))).toBe(true);
    expect(keys.some((k) => k.includes(u.user.id))).toBe(false);
  });

  it('counts a stream cut by the client as one abort, and its first token', async () => {
    const u = await newUser(t);
    const before = await scrape();
    p.openai.reply = { text: 'one two three four five six', chunks: 6, chunkDelayMs: 150 };
    await streamThenLeave(t.app, '/api/ai/stream', u.auth, ask);
    const settled = async () =>
      Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count) === 0;
    expect(await waitFor(settled)).toBe(true);
    const after = await scrape();
    expect(moved(before, after, 'ai_stream_aborts_total')).toBe(1);
    const ai = { provider: 'openai', model: 'gpt-4o' };
    expect(moved(before, after, 'ai_time_to_first_token_seconds_count', ai)).toBe(1);
    expect(moved(before, after, 'ai_request_duration_seconds_count', ai)).toBe(1);
    expect(moved(before, after, 'ai_provider_errors_total', { ...ai, code: 'RATE_LIMIT' })).toBe(0);
  });

  it('counts a provider 429 once by provider and code, and charges nothing', async () => {
    const u = await newUser(t);
    const before = await scrape();
    p.openai.reply = { status: 429, retryAfter: '0' };
    await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(429);
    const after = await scrape();
    expect(
      moved(before, after, 'ai_provider_errors_total', { provider: 'openai', code: 'RATE_LIMIT' }),
    ).toBe(1);
    expect(moved(before, after, 'credits_consumed_total', { model: 'gpt-4o' })).toBe(0);
    expect(moved(before, after, 'ai_stream_aborts_total')).toBe(0);
  });

  it('counts a purchase webhook as processed with its grant, and its redelivery as duplicate', async () => {
    const u = await newUser(t);
    const event = stripeEvent(
      'payment_intent.succeeded',
      paymentIntentObject({
        amount: 500,
        metadata: { userId: u.user.id, credits: '500', type: 'credit_purchase' },
      }),
    );
    const type = { type: 'payment_intent.succeeded' };
    const before = await scrape();
    await deliver(t.http, event, { secret: SECRET }).expect(200);
    const mid = await scrape();
    expect(moved(before, mid, 'webhook_events_total', { ...type, outcome: 'processed' })).toBe(1);
    expect(moved(before, mid, 'credits_granted_total', { type: 'PURCHASE' })).toBe(500);
    await deliver(t.http, event, { secret: SECRET }).expect(200);
    const after = await scrape();
    expect(moved(mid, after, 'webhook_events_total', { ...type, outcome: 'duplicate' })).toBe(1);
    expect(moved(mid, after, 'webhook_events_total', { ...type, outcome: 'processed' })).toBe(0);
    expect(moved(mid, after, 'credits_granted_total', { type: 'PURCHASE' })).toBe(0);
  });
});

describe('METRICS_PORT: metrics on a port of their own', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ METRICS_PORT: '0' });
  });
  afterAll(() => t.close());

  it('serves /metrics there only (404 on the API port)', async () => {
    await t.http.get('/metrics').expect(404);
    const port = t.app.get(MetricsModule).metricsPort();
    expect(port).toBeGreaterThan(0);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(sample(parseMetrics(await res.text()), 'credit_holds_open')).toBe(0);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  });
});
