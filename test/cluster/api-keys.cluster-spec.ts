import { OpenAiTestServer } from '../servers/openai-server';
import { verifyInMailDir } from '../support/accounts';
import type { SpawnedApp } from '../support/spawn-app';
import { startTwoInstances, stopInstance } from './instances';
import { Client } from 'pg';

/**
 * Personal API keys under `npm run test:cluster`: requests through one API key spread over two
 * instances cannot pass the key's daily credit limit nor the balance; a revocation on one
 * instance applies on the other at once.
 */
const RUN = `${process.pid}-${Date.now()}`;
/** Hold of this request on gpt-4o: ceil((2 estimated + 1000 max_tokens) * 0.00001 * 1000) = 11. */
const HOLD = 11;
const ASK = {
  model: 'gpt-4o',
  messages: [{ role: 'user', content: 'Tell me' }],
  max_tokens: 1000,
  stream: true,
};

// Natural batching on (the default) and off (each statement alone), on both instances.
describe.each(['true', 'false'])('API keys across two instances (BATCH_STATEMENTS=%s)', (batch) => {
  const openai = new OpenAiTestServer();
  const apps: SpawnedApp[] = [];
  const bases: string[] = [];
  let db: Client;

  const completions = (i: number, key: string) =>
    fetch(`${bases[i % 2]}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(ASK),
    }).then(async (r) => ({ status: r.status, body: await r.text() }));

  beforeAll(async () => {
    await openai.start();
    // Slow replies: no admitted request settles, returning credits, before all 20 arrive.
    openai.reply = { chunks: 2, chunkDelayMs: 1500 };
    const env = {
      DATABASE_URL: process.env.CLUSTER_PG_URL!,
      DB_POOL_SIZE: '10',
      AUTH_SECRET: 'cluster-test-secret-0123456789-0123456789',
      SIGNUP_CREDITS: String(HOLD * 6),
      OPENAI_API_KEY: 'sk-test-openai',
      OPENAI_BASE_URL: openai.url,
      AI_RETRY_BASE_DELAY_MS: '5',
      API_KEY_RPM: '1000',
      BATCH_STATEMENTS: batch,
    };
    await startTwoInstances({ apps, bases }, env);
    db = new Client({ connectionString: process.env.CLUSTER_PG_URL });
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    await Promise.all(apps.map(stopInstance));
    await openai.stop().catch(() => undefined);
  }, 60_000);

  it('admits exactly 3 of 20 parallel /v1 calls under a key limit of 3 holds, then exactly what the balance covers', async () => {
    const signup = await fetch(`${bases[0]}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `keys-${batch}-${RUN}@example.com`,
        password: 'cluster password 1',
      }),
    });
    expect(signup.status).toBe(201);
    const { user, accessToken } = (await signup.json()) as {
      user: { id: string };
      accessToken: string;
    };
    // The sign-up bonus waits for the address to be verified, through the mailed link.
    await verifyInMailDir(bases[0], apps[0].mailDir, `keys-${batch}-${RUN}@example.com`);
    const newKey = async (body: object) => {
      const res = await fetch(`${bases[1]}/api/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({ name: 'cluster', ...body }),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; key: string };
    };

    const limited = await newKey({ dailyCreditLimit: HOLD * 3 });
    // Warm both instances up (an instance's first requests are its slowest).
    for (let i = 0; i < 2; i++)
      expect(
        (
          await fetch(`${bases[i]}/v1/models`, {
            headers: { authorization: `Bearer ${limited.key}` },
          })
        ).status,
      ).toBe(200);
    const byKey = await Promise.all(
      Array.from({ length: 20 }, (_, i) => completions(i, limited.key)),
    );
    expect(byKey.filter((r) => r.status === 200)).toHaveLength(3);
    expect(byKey.filter((r) => r.status === 429)).toHaveLength(17);
    expect(JSON.parse(byKey.find((r) => r.status === 429)!.body).error.code).toBe(
      'key_daily_limit_reached',
    );

    // 66 - 3 consumed = 63 credits: 5 holds of 11.
    openai.requests.length = 0;
    const open = await newKey({});
    const byBalance = await Promise.all(
      Array.from({ length: 20 }, (_, i) => completions(i, open.key)),
    );
    expect(byBalance.filter((r) => r.status === 200)).toHaveLength(5);
    expect(byBalance.filter((r) => r.status === 402)).toHaveLength(15);
    expect(openai.requests).toHaveLength(5);

    const { rows } = await db.query(
      `SELECT u.credits,
         (SELECT COUNT(*)::int FROM credit_holds WHERE "userId" = u.id) AS holds,
         (SELECT COALESCE(SUM(amount), 0)::int FROM credit_transactions WHERE "userId" = u.id) AS ledger,
         (SELECT COUNT(*)::int FROM credit_transactions WHERE "keyId" = $2) AS "viaLimited"
       FROM users u WHERE u.id = $1`,
      [user.id, limited.id],
    );
    expect(rows[0]).toEqual({
      credits: HOLD * 6 - 8,
      holds: 0,
      ledger: HOLD * 6 - 8,
      viaLimited: 3,
    });

    // Revoked through one instance: refused by the other at once.
    const del = await fetch(`${bases[0]}/api/keys/${open.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(del.status).toBe(200);
    expect((await completions(1, open.key)).status).toBe(401);
  });
});
