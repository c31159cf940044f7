import { HOLD_SWEEP_QUEUE } from '../../src/credits/hold-sweep.service';
import { OpenAiTestServer } from '../servers/openai-server';
import { sendJob } from '../support/jobs-client';
import { EmbeddedPgDir, isAlive, waitUntil } from './support/embedded-pg';
import { call, type OpenStream, openStream } from './support/http';
import { booksOfAll, countersOffLedger, duplicateReferences, unbalanced } from './support/ledger';
import { killService, type Service, signUp, startService } from './support/service';

/** Hold lifetime of both instances: long enough for the first, short enough to wait for. */
const HOLD_TTL_SECONDS = 6;

/**
 * Crash mid-stream (docs/testing.md, fault tests): the service (child process, own embedded
 * PostgreSQL) is SIGKILLed while six streams hold credits. SIGKILL leaves its PostgreSQL running
 * (an orphan that holds the data directory); the test stops it as the README tells an operator to
 * (`kill <pid>`), restarts the service on the same directory, and, once the holds have expired,
 * sends the sweep job (scheduled every minute) rather than wait for its minute.
 */
describe('crash mid-stream: holds come back, nothing is charged twice', () => {
  let pg: EmbeddedPgDir;
  let first: Service | undefined;
  let second: Service | undefined;
  const openai = new OpenAiTestServer();
  const q = <T>(sql: string, params?: unknown[]) => pg.query<T>(sql, params);
  const ask = (content: string) => ({
    modelId: 'gpt-4o',
    maxTokens: 200,
    messages: [{ role: 'user', content }],
  });

  beforeAll(async () => {
    await openai.start();
    pg = await EmbeddedPgDir.create();
  });
  afterAll(async () => {
    await killService(first);
    await killService(second);
    await pg.cleanup();
    await openai.stop();
  });

  it('returns every hold through the sweep after a SIGKILL and keeps credits + holds = ledger', async () => {
    const env = {
      OPENAI_API_KEY: 'sk-test-openai',
      OPENAI_BASE_URL: openai.url,
      AI_RETRY_BASE_DELAY_MS: '5',
      HOLD_TTL_SECONDS: String(HOLD_TTL_SECONDS),
    };
    first = await startService(pg, env);
    const users = [
      await signUp(first.base, 'crash-a@example.com'),
      await signUp(first.base, 'crash-b@example.com'),
      await signUp(first.base, 'crash-c@example.com'),
    ];
    // One reply settled before the crash: its CONSUMPTION must survive exactly once.
    const settled = await call(first.base, 'POST', '/api/ai/generate', {
      headers: users[0].auth,
      body: ask('before the crash'),
    });
    expect(settled.status).toBe(200);

    // Six slow streams (20 chunks, 250 ms apart), text and SSE, two per user.
    openai.reply = { text: 'word '.repeat(20).trim(), chunks: 20, chunkDelayMs: 250 };
    const streams: OpenStream[] = await Promise.all(
      users.flatMap((u, i) => [
        openStream(first!.base, '/api/ai/stream', ask(`text ${i}`), u.auth),
        openStream(first!.base, '/api/ai/stream', ask(`sse ${i}`), {
          ...u.auth,
          accept: 'text/event-stream',
        }),
      ]),
    );
    await Promise.all(streams.map((s) => s.firstChunk));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const [{ n: open }] = await q<{ n: number }>('SELECT count(*)::int AS n FROM credit_holds');
    expect(open).toBe(6);
    const before = await booksOfAll(q);
    expect(before.every((b) => b.credits + b.held === b.ledger)).toBe(true);

    // Crash: no shutdown hook runs, no stream is settled.
    first.app.child.kill('SIGKILL');
    await first.app.exited;
    const endings = await Promise.all(streams.map((s) => s.ended));
    expect(endings.every((e) => e.startsWith('error'))).toBe(true);
    expect(streams.every((s) => !s.received().includes('event: done'))).toBe(true);

    // The orphaned PostgreSQL still holds the directory; the books balance at this instant.
    const orphan = pg.postmasterPid();
    expect(orphan).toBeDefined();
    expect(await unbalanced(q)).toEqual([]);
    process.kill(orphan!, 'SIGTERM');
    await waitUntil(() => !isAlive(orphan!), 20_000, 'the orphaned postgres to exit');

    // Restart on the same data directory; the expired holds are swept back.
    second = await startService(pg, env);
    await waitUntil(
      async () =>
        (
          await q<{ n: number }>(
            'SELECT count(*)::int AS n FROM credit_holds WHERE "expiresAt" >= now()',
          )
        )[0].n === 0,
      (HOLD_TTL_SECONDS + 10) * 1000,
      'the holds to expire',
    );
    await sendJob(pg.appUrl, HOLD_SWEEP_QUEUE, {});
    await waitUntil(
      async () =>
        (await q<{ n: number }>('SELECT count(*)::int AS n FROM credit_holds'))[0].n === 0,
      (HOLD_TTL_SECONDS + 60) * 1000,
      'the sweep to return the holds',
    );
    // The sweep logs after its commit, so its line may reach the pipe after the rows are gone.
    const sweptCount = () =>
      [...second!.app.output().matchAll(/Returned (\d+) expired credit holds/g)].reduce(
        (n, m) => n + Number(m[1]),
        0,
      );
    await waitUntil(() => sweptCount() >= 6, 60_000, 'the sweep to log its count');
    expect(sweptCount()).toBe(6);

    // Every user is back to their ledger: the cut streams charged nothing, the earlier reply
    // is charged once, and no reference appears twice.
    const after = await booksOfAll(q);
    expect(after).toEqual(before.map((b) => ({ ...b, credits: b.ledger, held: 0 })));
    expect(await duplicateReferences(q)).toEqual([]);
    const consumptions = await q<{ userId: string; n: number }>(
      `SELECT "userId", count(*)::int AS n FROM credit_transactions WHERE type = 'CONSUMPTION'
       GROUP BY "userId"`,
    );
    expect(consumptions).toEqual([{ userId: users[0].id, n: 1 }]);

    // The restarted service streams and settles normally.
    openai.reply = {};
    const res = await call(second.base, 'POST', '/api/ai/stream', {
      headers: users[1].auth,
      body: ask('after the restart'),
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('Hello from the test model.');
    expect(await unbalanced(q)).toEqual([]);
    expect(await countersOffLedger(q)).toEqual([]);
    expect(await duplicateReferences(q)).toEqual([]);
    const [{ n: holdsLeft }] = await q<{ n: number }>(
      'SELECT count(*)::int AS n FROM credit_holds',
    );
    expect(holdsLeft).toBe(0);
  }, 300_000);
});
