import { Client } from 'pg';
import { AnthropicTestServer } from '../servers/anthropic-server';
import { OpenAiTestServer } from '../servers/openai-server';
import type { SpawnedApp } from '../support/spawn-app';
import { waitFor } from '../support/wait';
import { startTwoInstances, stopInstance } from './instances';

/**
 * Upstreams under `npm run test:cluster`: two instances on one PostgreSQL route one model over
 * two upstreams; a cooldown that one instance starts (the first upstream's 429 with Retry-After)
 * is honoured by the other, which then sends nothing to the cooling upstream. An upstream's
 * requests-per-minute ceiling holds for both instances (and all their workers) together.
 */
const RUN = `${process.pid}-${Date.now()}`;
const ASK = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 20 };

describe('upstream cooldowns across two instances', () => {
  const first = new OpenAiTestServer();
  const second = new OpenAiTestServer();
  const claude = new AnthropicTestServer();
  const apps: SpawnedApp[] = [];
  const bases: string[] = [];
  let db: Client;
  let admin: { authorization: string };
  let user: { authorization: string };

  const signUp = async (email: string) => {
    const res = await fetch(`${bases[0]}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'cluster password 1' }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { user: { id: string }; accessToken: string };
  };
  const complete = (i: number) =>
    fetch(`${bases[i]}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...user },
      body: JSON.stringify(ASK),
    });
  /** The first upstream's state as stored in PostgreSQL (what every instance reads). */
  const firstCooling = async () =>
    (
      await db.query(
        `SELECT 1 FROM upstream_states WHERE "upstreamId" = 'env:openai' AND "cooldownUntil" > now()`,
      )
    ).rowCount === 1;
  /**
   * Waits at least `ms`: longer than a cache's lifetime, so every process has read again. A
   * lower bound (the caches expire by their own clock), not a budget a busy machine can miss.
   */
  const atLeast = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    await first.start();
    await second.start();
    await claude.start();
    await startTwoInstances(
      { apps, bases },
      {
        DATABASE_URL: process.env.CLUSTER_PG_URL!,
        DB_POOL_SIZE: '10',
        AUTH_SECRET: 'cluster-test-secret-0123456789-0123456789',
        ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
        OPENAI_API_KEY: 'sk-test-first',
        OPENAI_BASE_URL: first.url,
        AI_RETRY_BASE_DELAY_MS: '5',
      },
    );
    db = new Client({ connectionString: process.env.CLUSTER_PG_URL });
    await db.connect();
    const a = await signUp(`upstreams-admin-${RUN}@example.com`);
    await db.query(`UPDATE users SET role = 'ADMIN' WHERE id = $1`, [a.user.id]);
    admin = { authorization: `Bearer ${a.accessToken}` };
    const u = await signUp(`upstreams-user-${RUN}@example.com`);
    await db.query(`UPDATE users SET credits = 1000 WHERE id = $1`, [u.user.id]);
    user = { authorization: `Bearer ${u.accessToken}` };
  }, 180_000);

  afterAll(async () => {
    await db
      ?.query(`DELETE FROM upstreams WHERE name = ANY($1)`, [[`second-${RUN}`, `claude-${RUN}`]])
      .catch(() => undefined);
    await db?.end().catch(() => undefined);
    await Promise.all(apps.map(stopInstance));
    await first.stop().catch(() => undefined);
    await second.stop().catch(() => undefined);
    await claude.stop().catch(() => undefined);
  }, 60_000);

  it('a cooldown started on one instance keeps the other away from that upstream', async () => {
    // The second upstream, below the environment's in priority: the first is always tried first
    // while it is healthy.
    const created = await fetch(`${bases[1]}/api/admin/upstreams`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...admin },
      body: JSON.stringify({
        provider: 'openai',
        name: `second-${RUN}`,
        baseUrl: second.url,
        apiKey: 'sk-test-second',
        priority: -1,
      }),
    });
    expect(created.status).toBe(201);
    // Every process reads the upstream rows again every 5 s (TABLE_CACHE_MS): after that all
    // know the second. Healthy, the first is tried first everywhere.
    await atLeast(5_500);
    for (const i of [0, 1]) expect((await complete(i)).status).toBe(200);
    expect(second.requests).toHaveLength(0);

    // The first upstream is rate-limited for a minute: instance 0 fails over to the second.
    first.reply = { status: 429, retryAfter: '60' };
    first.requests.length = 0;
    expect((await complete(0)).status).toBe(200);
    expect(first.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(1);

    // Instance 1 learns of the cooldown through PostgreSQL (its copy of the health is at most
    // 250 ms old) and goes to the second without trying the first.
    expect(await waitFor(firstCooling)).toBe(true);
    await atLeast(300);
    expect((await complete(1)).status).toBe(200);
    expect(first.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(2);
  }, 120_000);

  it('an upstream’s requests-per-minute ceiling holds for both instances together', async () => {
    // The only upstream of Anthropic's models (no environment key): 3 requests a minute.
    const created = await fetch(`${bases[0]}/api/admin/upstreams`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...admin },
      body: JSON.stringify({
        provider: 'anthropic',
        name: `claude-${RUN}`,
        baseUrl: claude.url,
        apiKey: 'sk-ant-cluster',
        rpm: 3,
      }),
    });
    expect(created.status).toBe(201);
    await atLeast(5_500);
    const minuteOf = (ms: number) => Math.floor(ms / 60_000);
    const startedAt = Date.now();
    const statuses: number[] = [];
    // Alternating instances, until one refuses (at most 20 calls: 3 a minute cannot last that long).
    while (!statuses.includes(429) && statuses.length < 20) {
      const res = await fetch(`${bases[statuses.length % 2]}/api/ai/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...user },
        body: JSON.stringify({
          modelId: 'claude-haiku-4-5',
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      // Longer than the usage copy's lifetime: each process's next routing adds up every count.
      await atLeast(300);
    }
    const minutes = minuteOf(Date.now()) - minuteOf(startedAt) + 1;
    const served = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(statuses).toContain(429);
    expect(claude.requests).toHaveLength(served);
    expect(served).toBeLessThanOrEqual(3 * minutes);
  }, 120_000);
});
