import { Client } from 'pg';
import { OpenAiTestServer } from '../servers/openai-server';
import { verifyInMailDir } from '../support/accounts';
import type { SpawnedApp } from '../support/spawn-app';
import { waitFor } from '../support/wait';
import { startTwoInstances, stopInstance } from './instances';

/**
 * Search indexing on two instances: exchanges saved through both instances into the
 * same chats are embedded exactly once each (one job per chat and window across instances, and
 * a per-chat lock), with the books balanced; a job queued by an instance that is then killed is
 * done by the other (the queue is in PostgreSQL). Each instance has its own local OpenAI server,
 * so the test counts every text sent for embedding.
 */

const RUN = `${process.pid}-${Date.now()}`;

describe('search indexing on two instances', () => {
  let db: Client | undefined;
  const servers = [new OpenAiTestServer(), new OpenAiTestServer()];
  const apps: SpawnedApp[] = [];
  const bases: string[] = [];

  const generate = async (i: number, auth: object, content: string, chatId?: string) => {
    const res = await fetch(`${bases[i]}/api/ai/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({
        modelId: 'gpt-4o-mini',
        messages: [{ role: 'user', content }],
        ...(chatId ? { chatId } : {}),
      }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { chatId: string }).chatId;
  };

  const signup = async (tag: string) => {
    const res = await fetch(`${bases[0]}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `${tag}-${RUN}@example.com`, password: 'cluster password 1' }),
    });
    const { user, accessToken } = (await res.json()) as {
      user: { id: string };
      accessToken: string;
    };
    await verifyInMailDir(bases[0], apps[0].mailDir, `${tag}-${RUN}@example.com`);
    return { id: user.id, auth: { authorization: `Bearer ${accessToken}` } };
  };

  /** Texts sent for embedding, over both servers. */
  const embedded = () =>
    servers.flatMap((s) =>
      s.requests
        .filter((r) => r.path === '/v1/embeddings')
        .flatMap((r) => r.body.input as string[]),
    );

  const unembedded = async (chatIds: string[]) => {
    const { rows } = await db!.query(
      `SELECT count(*)::int AS n FROM messages m WHERE m."chatId" = ANY($1)
         AND NOT EXISTS (SELECT 1 FROM message_vectors v WHERE v."messageId" = m.id)`,
      [chatIds],
    );
    return rows[0].n as number;
  };

  /** Index jobs of these chats not finished yet (waiting, retrying or running). */
  const pendingJobs = async (chatIds: string[]) => {
    const { rows } = await db!.query(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'search-index'
         AND data->>'chatId' = ANY($1) AND state IN ('created', 'retry', 'active')`,
      [chatIds],
    );
    return rows[0].n as number;
  };

  beforeAll(async () => {
    const databaseUrl = process.env.CLUSTER_PG_URL!;
    for (const s of servers) await s.start();
    const env: Record<string, string | undefined> = {
      DATABASE_URL: databaseUrl,
      DB_POOL_SIZE: '10',
      AUTH_SECRET: 'cluster-test-secret-0123456789-0123456789',
      AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      SIGNUP_CREDITS: '100',
      OPENAI_API_KEY: 'sk-test-openai',
      AI_RETRY_BASE_DELAY_MS: '5',
      JOBS_POLL_INTERVAL_SECONDS: '0.5',
      JOBS_SUPERVISE_INTERVAL_SECONDS: '1',
      EMBEDDINGS_MODEL: 'text-embedding-3-small',
      EMBEDDINGS_DIMENSIONS: '64',
      SEARCH_INDEX_DELAY_SECONDS: '1',
    };
    await startTwoInstances({ apps, bases }, env, (i) => ({ OPENAI_BASE_URL: servers[i].url }));
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    await Promise.all(apps.map(stopInstance));
    for (const s of servers) await s.stop().catch(() => undefined);
  }, 60_000);

  it('embeds each message once although both instances save into the same chats', async () => {
    const u = await signup('embed-once');
    const chats = [
      await generate(0, u.auth, 'first chat opens'),
      await generate(1, u.auth, 'second chat opens'),
    ];
    // Both instances continue both chats at once: their jobs overlap in time.
    await Promise.all(
      [0, 1, 2, 3].map((n) => generate(n % 2, u.auth, `turn ${n}`, chats[n % 2 === 0 ? 0 : 1])),
    );
    await Promise.all(
      [0, 1, 2, 3].map((n) => generate(n % 2, u.auth, `again ${n}`, chats[n % 2 === 0 ? 1 : 0])),
    );
    expect(await waitFor(async () => (await unembedded(chats)) === 0)).toBe(true);
    // Every index job of these chats has finished: a duplicate would have sent its texts again.
    expect(await waitFor(async () => (await pendingJobs(chats)) === 0)).toBe(true);
    const { rows } = await db!.query(
      `SELECT count(*)::int AS n FROM messages WHERE "chatId" = ANY($1)`,
      [chats],
    );
    expect(rows[0].n).toBe(2 * 10); // 10 exchanges of a question and a reply
    expect(embedded()).toHaveLength(rows[0].n);
    const books = await db!.query(
      `SELECT u.credits,
              (SELECT COALESCE(SUM(amount), 0)::int FROM credit_holds WHERE "userId" = u.id) AS held,
              (SELECT COALESCE(SUM(amount), 0)::int FROM credit_transactions WHERE "userId" = u.id) AS "ledgerSum"
       FROM users u WHERE u.id = $1`,
      [u.id],
    );
    expect(books.rows[0].credits + books.rows[0].held).toBe(books.rows[0].ledgerSum);
  });

  it('finishes on the other instance a job queued by an instance killed before it ran', async () => {
    const u = await signup('survivor');
    for (const s of servers) s.requests.length = 0;
    const chatId = await generate(0, u.auth, 'saved just before the crash');
    // The job is queued (after the answer, not awaited by it): wait for its row, then kill.
    const queued = async () =>
      (
        await db!.query(
          `SELECT 1 FROM pgboss.job WHERE name = 'search-index' AND data->>'chatId' = $1`,
          [chatId],
        )
      ).rows.length > 0;
    expect(await waitFor(queued)).toBe(true);
    apps[0].child.kill('SIGKILL');
    await apps[0].exited;
    expect(await waitFor(async () => (await unembedded([chatId])) === 0)).toBe(true);
    expect(servers[1].requests.filter((r) => r.path === '/v1/embeddings')).toHaveLength(1);
  });
});
