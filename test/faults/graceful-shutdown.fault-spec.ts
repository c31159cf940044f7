import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { OpenAiTestServer } from '../servers/openai-server';
import { BOOT_MS, freePort, spawnApp, waitForStatus } from '../support/spawn-app';
import { adminQuery, databaseUrl, templateDb, TEST_DB_PREFIX } from '../support/test-db';
import { call, openStream } from './support/http';
import { unbalanced } from './support/ledger';
import { SERVICE_SECRET, signUp } from './support/service';

/**
 * SIGTERM during a stream. The service runs as a child process on a database of
 * the test server (so the books can be read after it exits): readiness turns 503 at once, new
 * requests get 503, the stream finishes within SHUTDOWN_GRACE_MS or is cut and settled after
 * it, the process exits 0, and no hold is left.
 */
// Each test boots the service once: one boot's allowance plus as much again for its work.
jest.setTimeout(2 * BOOT_MS);

describe('graceful shutdown: SIGTERM during a stream', () => {
  const openai = new OpenAiTestServer();
  let db: Client;
  let dbName: string;
  const q = async <T>(sql: string, params?: unknown[]) => (await db.query(sql, params)).rows as T[];
  const ask = (content: string) => ({
    modelId: 'gpt-4o',
    maxTokens: 200,
    messages: [{ role: 'user', content }],
  });

  beforeAll(async () => {
    await openai.start();
    dbName = `${TEST_DB_PREFIX}${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE "${dbName}" TEMPLATE "${templateDb()}"`);
    db = new Client({ connectionString: databaseUrl(dbName) });
    db.on('error', () => undefined);
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await adminQuery(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await openai.stop();
  });

  async function start(graceMs: number) {
    const port = await freePort();
    const app = spawnApp({
      DATABASE_URL: databaseUrl(dbName),
      DB_MIGRATIONS_RUN: 'false',
      PORT: String(port),
      AUTH_SECRET: SERVICE_SECRET,
      AUTH_RATE_LIMIT_PER_MINUTE: '10000',
      OPENAI_API_KEY: 'sk-test-openai',
      OPENAI_BASE_URL: openai.url,
      SHUTDOWN_GRACE_MS: String(graceMs),
      LOG_LEVEL: 'info',
    });
    const base = `http://127.0.0.1:${port}`;
    await waitForStatus(app, `${base}/health/ready`, 200);
    return { app, base };
  }

  it('drains: 503 for readiness and new requests, the stream finishes, exit 0, no hold', async () => {
    const { app, base } = await start(15_000);
    const u = await signUp(
      base,
      `drain-${randomBytes(3).toString('hex')}@example.com`,
      app.mailDir,
    );
    // About 2 s of streaming: well inside the grace period.
    openai.reply = { text: 'word '.repeat(10).trim(), chunks: 10, chunkDelayMs: 200 };
    const stream = await openStream(base, '/api/ai/stream', ask('drain'), {
      ...u.auth,
      accept: 'text/event-stream',
    });
    await stream.firstChunk;
    app.child.kill('SIGTERM');

    const ready = await call(base, 'GET', '/health/ready');
    expect({ status: ready.status, code: ready.json?.code }).toEqual({
      status: 503,
      code: 'NOT_READY',
    });
    const fresh = await call(base, 'POST', '/api/ai/generate', {
      headers: u.auth,
      body: ask('too late'),
    });
    expect(fresh.status).toBe(503);
    expect((await call(base, 'GET', '/health/live')).status).toBe(200);

    expect(await stream.ended).toBe('end');
    expect(stream.received()).toContain('event: done');
    expect(await app.exited).toBe(0);
    expect(app.output()).toMatch(/Streams: 1 finished, 0 cut/);
    expect(await q('SELECT id FROM credit_holds')).toEqual([]);
    expect(await unbalanced(q)).toEqual([]);
    // Only the finished reply was sent upstream: the refused request never reached it.
    expect(openai.requests).toHaveLength(1);
  });

  it('waits for the drain of a stream whose client left, settles its reported usage, exits 0', async () => {
    openai.requests.length = 0;
    const { app, base } = await start(15_000);
    const u = await signUp(base, `left-${randomBytes(3).toString('hex')}@example.com`, app.mailDir);
    // About 2 s of streaming after the client left: the drain (ABORT_MODE=drain, the default)
    // reads it to its usage well inside the grace period.
    openai.reply = {
      text: 'word '.repeat(10).trim(),
      chunks: 10,
      chunkDelayMs: 200,
      usage: { prompt_tokens: 600, completion_tokens: 300 },
    };
    const stream = await openStream(base, '/api/ai/stream', ask('left'), {
      ...u.auth,
      accept: 'text/event-stream',
    });
    await stream.firstChunk;
    stream.destroy();
    app.child.kill('SIGTERM');

    expect(await app.exited).toBe(0);
    expect(app.output()).toMatch(/Streams: 1 finished, 0 cut/);
    expect(openai.requests).toHaveLength(1);
    expect(openai.requests[0].aborted).toBe(false);
    expect(await q('SELECT id FROM credit_holds')).toEqual([]);
    expect(await unbalanced(q)).toEqual([]);
    // gpt-4o: (600 + 300) × 0.00001 × 1000 = 9 credits, the usage the provider reported.
    const charged = await q<{ amount: number; description: string }>(
      `SELECT amount, description FROM credit_transactions
        WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.id],
    );
    expect(charged).toEqual([
      { amount: -9, description: expect.stringContaining('client left; usage read to the end') },
    ]);
  });

  it('cuts a stream still open after SHUTDOWN_GRACE_MS, settles it as aborted, exits 0', async () => {
    openai.requests.length = 0;
    const { app, base } = await start(1000);
    const u = await signUp(base, `cut-${randomBytes(3).toString('hex')}@example.com`, app.mailDir);
    // About 10 s of streaming: longer than the grace period.
    openai.reply = { text: 'word '.repeat(40).trim(), chunks: 40, chunkDelayMs: 250 };
    const stream = await openStream(base, '/api/ai/stream', ask('cut'), {
      ...u.auth,
      accept: 'text/event-stream',
    });
    await stream.firstChunk;
    app.child.kill('SIGTERM');

    expect(await stream.ended).toBe('end');
    expect(stream.received()).toMatch(/event: error\ndata: \{[^\n]*"code":"NOT_READY"/);
    expect(stream.received()).not.toContain('event: done');
    expect(await app.exited).toBe(0);
    expect(app.output()).toMatch(/Streams: 0 finished, 1 cut/);
    expect(openai.requests[0]?.aborted).toBe(true);

    expect(await q('SELECT id FROM credit_holds')).toEqual([]);
    expect(await unbalanced(q)).toEqual([]);
    const charged = await q<{ amount: number; description: string }>(
      `SELECT amount, description FROM credit_transactions
        WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.id],
    );
    expect(charged).toHaveLength(1);
    expect(charged[0].amount).toBeLessThan(0);
    expect(charged[0].description).toMatch(/estimated: stream interrupted/);
  });
});
