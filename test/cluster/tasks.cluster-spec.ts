import { Client } from 'pg';
import { OpenAiTestServer } from '../servers/openai-server';
import { verifyInMailDir } from '../support/accounts';
import { TICK_QUEUE } from '../../src/tasks/task-scheduler';
import { sendJob } from '../support/jobs-client';
import type { SpawnedApp } from '../support/spawn-app';
import { waitFor } from '../support/wait';
import { startTwoInstances, stopInstance } from './instances';

/**
 * Scheduled tasks on two instances: due tasks run exactly once although both
 * instances run the tick job (the test sends it rather than wait for its minute, several times
 * over), a cancel reaching the other instance stops the run (the running
 * instance polls the flag), and a run whose instance is killed mid-call is retried by the
 * other one (pg-boss heartbeat). Each instance talks to its own local OpenAI server, so the
 * test knows which instance is running a run.
 */

const RUN = `${process.pid}-${Date.now()}`;
const PASSWORD = 'cluster password 1';
const DUE_TASKS = 6;

describe('scheduled tasks on two instances', () => {
  let db: Client | undefined;
  const servers = [new OpenAiTestServer(), new OpenAiTestServer()];
  const apps: SpawnedApp[] = [];
  const bases: string[] = [];

  const call = async (i: number, method: string, path: string, auth: object, body?: unknown) => {
    const res = await fetch(`${bases[i]}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...auth },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  const proUser = async (tag: string) => {
    const res = await fetch(`${bases[0]}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `${tag}-${RUN}@example.com`, password: PASSWORD }),
    });
    const { user, accessToken } = (await res.json()) as {
      user: { id: string };
      accessToken: string;
    };
    await verifyInMailDir(bases[0], apps[0].mailDir, `${tag}-${RUN}@example.com`);
    await db!.query(`UPDATE users SET plan = 'PRO' WHERE id = $1`, [user.id]);
    return { id: user.id, auth: { authorization: `Bearer ${accessToken}` } };
  };

  const task = (name: string) => ({
    name,
    // Once a year (1 January): no occurrence comes due by itself while the tests run, so every
    // run is one the test caused (a 5-minute schedule made a second run when a test crossed :x5).
    schedule: { cron: '0 0 1 1 *', timezone: 'UTC' },
    prompt: { modelId: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] },
    target: { mode: 'new_chat' },
  });

  /** Sends one tick job and resolves once an instance has completed it. */
  const tick = async () => {
    const id = await sendJob(process.env.CLUSTER_PG_URL!, TICK_QUEUE, {});
    if (!id) return; // a tick was already waiting: it runs instead
    const completed = async () => {
      const { rows } = await db!.query(`SELECT state FROM pgboss.job WHERE id = $1`, [id]);
      expect(rows[0]?.state).not.toBe('failed');
      return rows[0]?.state === 'completed';
    };
    expect(await waitFor(completed)).toBe(true);
  };

  /** The index of the server (so of the instance) that received the first request. */
  const firstCalled = async () => {
    expect(await waitFor(() => servers.some((s) => s.requests.length > 0))).toBe(true);
    return servers.findIndex((s) => s.requests.length > 0);
  };

  const runs = async (taskId: string) =>
    (
      await db!.query(`SELECT id, status, "scheduledFor" FROM task_runs WHERE "taskId" = $1`, [
        taskId,
      ])
    ).rows as { id: string; status: string; scheduledFor: Date | null }[];

  const balanced = async (userId: string) => {
    const { rows } = await db!.query(
      `SELECT u.credits,
              (SELECT COALESCE(SUM(amount), 0)::int FROM credit_holds WHERE "userId" = u.id) AS held,
              (SELECT COALESCE(SUM(amount), 0)::int FROM credit_transactions WHERE "userId" = u.id) AS "ledgerSum"
       FROM users u WHERE u.id = $1`,
      [userId],
    );
    expect(rows[0].credits + rows[0].held).toBe(rows[0].ledgerSum);
    return rows[0] as { credits: number; held: number; ledgerSum: number };
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
      TASKS_RUN_HEARTBEAT_SECONDS: '10',
      // A cancel stops the provider call at once, so the partial output shows; the default
      // (drain: read to the provider's usage) is tested in test/e2e/ai/stream-abort-drain.
      ABORT_MODE: 'cancel',
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

  it(`runs each of ${DUE_TASKS} due tasks exactly once although both instances tick`, async () => {
    const u = await proUser('due');
    const ids: string[] = [];
    for (let i = 0; i < DUE_TASKS; i++) {
      const res = await call(i % 2, 'POST', '/api/tasks', u.auth, task(`due ${i}`));
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    // Due 10 minutes ago (missed twice): the next tick, on whichever instance, queues them.
    await db!.query(
      `UPDATE tasks SET "nextRunAt" = now() - interval '10 minutes' WHERE id = ANY($1)`,
      [ids],
    );
    await tick();
    for (const id of ids) {
      const succeeded = async () => {
        const r = await runs(id);
        return r.length > 0 && r.every((x) => x.status === 'succeeded');
      };
      expect(await waitFor(succeeded)).toBe(true);
    }
    for (let i = 0; i < 4; i++) await tick(); // several more ticks, on either instance
    for (const id of ids) expect(await runs(id)).toHaveLength(1);
    expect(servers[0].requests.length + servers[1].requests.length).toBe(DUE_TASKS);
    await balanced(u.id);
  });

  it('cancels a run through the instance that is not running it', async () => {
    const u = await proUser('cancel');
    const created = await call(0, 'POST', '/api/tasks', u.auth, task('cancel me'));
    for (const s of servers) {
      s.requests.length = 0;
      s.reply = { text: 'word '.repeat(30), chunks: 30, chunkDelayMs: 150 };
    }
    const queued = await call(0, 'POST', `/api/tasks/${created.body.id}/run`, u.auth, {});
    const runner = await firstCalled();
    // Some words have been sent to the running instance (of 30).
    expect(await waitFor(() => servers[runner].requests[0].textChunksSent >= 3)).toBe(true);
    const path = `/api/tasks/${created.body.id}/runs/${queued.body.id}`;
    const asked = await call(1 - runner, 'POST', `${path}/cancel`, u.auth, {});
    expect(asked.status).toBe(200);
    let run = asked.body;
    const ended = async () => {
      if (run.status !== 'running') return true;
      run = (await call(1 - runner, 'GET', path, u.auth)).body;
      return run.status !== 'running';
    };
    expect(await waitFor(ended)).toBe(true);
    expect(run.status).toBe('cancelled');
    expect(run.cost).toBeGreaterThan(0);
    expect(run.steps[0].output.length).toBeLessThan('word '.repeat(30).length);
    expect(servers[runner].requests[0].aborted).toBe(true);
    const after = await balanced(u.id);
    expect(after.held).toBe(0);
    for (const s of servers) s.reply = {};
  });

  it("retries a killed instance's run on the other instance", async () => {
    const u = await proUser('kill');
    const created = await call(0, 'POST', '/api/tasks', u.auth, task('survivor'));
    for (const s of servers) {
      s.requests.length = 0;
      // Slow replies: the run is mid-call when its instance dies.
      s.reply = { chunks: 2, chunkDelayMs: 4000 };
    }
    const queued = await call(0, 'POST', `/api/tasks/${created.body.id}/run`, u.auth, {});
    expect(queued.status).toBe(202);
    const victim = await firstCalled();
    const survivor = 1 - victim;
    servers[survivor].reply = {};
    apps[victim].child.kill('SIGKILL');
    await apps[victim].exited;
    const settled = async () => {
      const [r] = await runs(created.body.id);
      return r.status !== 'running' && r.status !== 'queued';
    };
    expect(await waitFor(settled)).toBe(true);
    const [run] = await runs(created.body.id);
    expect(run.status).toBe('succeeded');
    expect(servers[survivor].requests).toHaveLength(1);
    // The dead instance's hold stays until the sweep returns it; the books balance meanwhile.
    const after = await balanced(u.id);
    expect(after.held).toBeGreaterThan(0);
  });
});
