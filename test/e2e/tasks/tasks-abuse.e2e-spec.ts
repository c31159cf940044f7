import { RunSweep } from '../../../src/tasks/run-sweep.service';
import { UsersService } from '../../../src/users/users.service';
import { newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { balanced, createTask, dailyTask, finished, runNow, stopTaskTick } from './tasks.helpers';

const say = (content: string) => [{ role: 'user', content }];

describe('Task runs within bounds: oversized renders, failed jobs, lost runs, manual run rate', () => {
  let t: TestApp;
  let p: Providers;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({
      ...p.env,
      JOBS_POLL_INTERVAL_SECONDS: '0.5',
      TASKS_MANUAL_RUNS_PER_MINUTE: '3',
      TASKS_RUN_RETRY_DELAY_SECONDS: '1',
    });
    await stopTaskTick(t);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  const proUser = async (credits = 1000): Promise<TestUser> => {
    const u = await newUser(t, { credits });
    await t.app.get(UsersService).setPlan(u.user.id, 'PRO');
    return u;
  };

  it('refuses at once a run whose input would render 200 M characters, and stays responsive', async () => {
    const u = await proUser();
    // 10 000 placeholders (90 KB, under the body limit) and a 20 000-character input.
    const task = await createTask(
      t,
      u,
      dailyTask({ prompt: { modelId: 'gpt-4o', messages: say('{{input}}'.repeat(10_000)) } }),
    );
    const rssBefore = process.memoryUsage().rss;
    const live: Promise<number>[] = [];
    const run = t.http
      .post(`/api/tasks/${task.id}/run`)
      .set(u.auth)
      .send({ input: 'x'.repeat(20_000) });
    for (let i = 0; i < 5; i++) live.push(t.http.get('/health/live').then((r) => r.status));
    const res = await run;
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await Promise.all(live)).toEqual([200, 200, 200, 200, 200]);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(50 * 1024 * 1024);
    // Nothing was queued and nothing was sent to a provider.
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM task_runs WHERE "taskId" = $1`,
      [task.id],
    );
    expect(n).toBe(0);
    expect(p.openai.requests).toHaveLength(0);
  });

  it('fails a step whose earlier outputs would render too much, as PAYLOAD_TOO_LARGE, not running', async () => {
    const u = await proUser();
    const task = await createTask(
      t,
      u,
      dailyTask({
        prompt: {
          modelId: 'gpt-4o',
          steps: [
            { name: 'a', messages: say('Say something') },
            // The test model answers 26 characters: 20 000 copies are 520 000.
            { name: 'b', messages: say('{{steps.a.output}}'.repeat(20_000)) },
          ],
        },
      }),
    );
    const run = await finished(t, u, task.id, (await runNow(t, u, task.id)).id);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(run.steps.map((s) => [s.name, s.status])).toEqual([
      ['a', 'succeeded'],
      ['b', 'failed'],
    ]);
    expect(p.openai.requests).toHaveLength(1);
    await balanced(t, u);
  });

  it('marks a run failed, with the error, when its job fails for good', async () => {
    const u = await proUser();
    const task = await createTask(t, u, dailyTask());
    // Every attempt throws an unexpected error (not a business outcome) before the model call.
    await t.db.query(`
      CREATE FUNCTION refuse_hold() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'hold refused by test'; END $$;
      CREATE TRIGGER refuse_hold BEFORE INSERT ON credit_holds FOR EACH ROW EXECUTE FUNCTION refuse_hold();
    `);
    try {
      const run = await finished(t, u, task.id, (await runNow(t, u, task.id)).id);
      expect(run.status).toBe('failed');
      expect(run.error?.code).toBe('INTERNAL_ERROR');
      expect(run.error?.message).toMatch(/hold refused by test/);
    } finally {
      await t.db.query(`DROP TRIGGER refuse_hold ON credit_holds; DROP FUNCTION refuse_hold()`);
    }
    expect(p.openai.requests).toHaveLength(0);
    await balanced(t, u);
    // Three attempts with the queue's retry backoff (1 s, then 2 s) before the failure is final.
  });

  it('sweeps a run left running whose job is gone, and leaves a fresh one alone', async () => {
    const u = await proUser();
    const task = await createTask(t, u, dailyTask());
    const insert = (startedAgo: string) =>
      t.db.query(
        `INSERT INTO task_runs ("taskId", "userId", trigger, status, "startedAt")
         VALUES ($1, $2, 'manual', 'running', now() - $3::interval) RETURNING id`,
        [task.id, u.user.id, startedAgo],
      );
    const [[lost], [fresh]] = [await insert('10 minutes'), await insert('1 second')];
    expect(await t.app.get(RunSweep).sweep()).toBe(1);
    const status = async (id: string) =>
      (await t.db.query(`SELECT status, "errorCode" FROM task_runs WHERE id = $1`, [id]))[0];
    expect(await status(lost.id)).toEqual({ status: 'failed', errorCode: 'INTERNAL_ERROR' });
    expect(await status(fresh.id)).toEqual({ status: 'running', errorCode: null });
    expect(await t.app.get(RunSweep).sweep()).toBe(0);
  });

  it('rate-limits manual runs per user (429 with Retry-After), not other users', async () => {
    const [u, other] = [await proUser(), await proUser()];
    const task = await createTask(t, u, dailyTask());
    for (let i = 0; i < 3; i++) await runNow(t, u, task.id);
    const res = await t.http.post(`/api/tasks/${task.id}/run`).set(u.auth).send({});
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('RATE_LIMITED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    const theirs = await createTask(t, other, dailyTask());
    await runNow(t, other, theirs.id);
  });
});
