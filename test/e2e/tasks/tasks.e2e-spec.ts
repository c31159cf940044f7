import { TaskScheduler } from '../../../src/tasks/task-scheduler';
import { UsersService } from '../../../src/users/users.service';
import type { Plan } from '../../../src/users/user.entity';
import { newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { SetClock } from '../../support/two-factor';
import {
  balanced,
  createTask,
  dailyTask,
  finished,
  runNow,
  type RunView,
  stopTaskTick,
  type TaskView,
} from './tasks.helpers';

describe('Scheduled tasks', () => {
  let t: TestApp;
  let p: Providers;
  const clock = new SetClock();

  beforeAll(async () => {
    p = await startProviders();
    clock.at = new Date('2031-03-02T06:58:00Z');
    t = await createTestApp({ ...p.env, JOBS_POLL_INTERVAL_SECONDS: '0.5' }, { clock });
    await stopTaskTick(t);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(async () => {
    p.reset();
    // Each test schedules only its own tasks: earlier tests' tasks stop being due.
    await t.db.query(`UPDATE tasks SET enabled = false, "nextRunAt" = NULL`);
  });

  const userOn = async (plan: Plan, credits = 100): Promise<TestUser> => {
    const u = await newUser(t, { credits });
    await t.app.get(UsersService).setPlan(u.user.id, plan);
    return u;
  };
  const tick = () => t.app.get(TaskScheduler).tick();
  const runsOf = async (u: TestUser, taskId: string): Promise<RunView[]> =>
    (await t.http.get(`/api/tasks/${taskId}/runs`).set(u.auth).expect(200)).body.data;

  it('creates a task with nextRunAt, shows the next 5 runs, lists, changes and deletes it', async () => {
    const u = await userOn('FREE');
    const res = await t.http
      .post('/api/tasks')
      .set(u.auth)
      .send(dailyTask({ schedule: { cron: '0 8 * * *', timezone: 'Europe/Paris' } }))
      .expect(201);
    const task = res.body as TaskView;
    expect(task).toMatchObject({
      name: 'Morning digest',
      schedule: { cron: '0 8 * * *', timezone: 'Europe/Paris' },
      target: { mode: 'new_chat', chatId: null },
      enabled: true,
      pausedReason: null,
      nextRunAt: '2031-03-02T07:00:00.000Z',
    });
    const detail = await t.http.get(`/api/tasks/${task.id}`).set(u.auth).expect(200);
    expect(detail.body.nextRuns).toEqual([
      '2031-03-02T07:00:00.000Z',
      '2031-03-03T07:00:00.000Z',
      '2031-03-04T07:00:00.000Z',
      '2031-03-05T07:00:00.000Z',
      '2031-03-06T07:00:00.000Z',
    ]);
    const list = await t.http.get('/api/tasks').set(u.auth).expect(200);
    expect(list.body.map((x: TaskView) => x.id)).toEqual([task.id]);
    const patched = await t.http
      .patch(`/api/tasks/${task.id}`)
      .set(u.auth)
      .send({ name: 'Digest', schedule: { cron: '30 9 * * 1', timezone: 'UTC' } })
      .expect(200);
    expect(patched.body).toMatchObject({ name: 'Digest', nextRunAt: '2031-03-03T09:30:00.000Z' });
    const other = await newUser(t);
    await t.http.get(`/api/tasks/${task.id}`).set(other.auth).expect(404);
    await t.http.delete(`/api/tasks/${task.id}`).set(other.auth).expect(404);
    await t.http.delete(`/api/tasks/${task.id}`).set(u.auth).expect(200);
    await t.http.get(`/api/tasks/${task.id}`).set(u.auth).expect(404);
  });

  it('validates cron (5 fields), the IANA zone and the target', async () => {
    const u = await userOn('PRO');
    const bad = async (body: object, field: string) => {
      const res = await t.http.post('/api/tasks').set(u.auth).send(dailyTask(body)).expect(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(res.body.error).toContain(field);
    };
    await bad({ schedule: { cron: '0 8 * *', timezone: 'UTC' } }, 'schedule.cron');
    await bad({ schedule: { cron: '0 0 8 * * *', timezone: 'UTC' } }, 'schedule.cron');
    await bad({ schedule: { cron: '0 25 * * *', timezone: 'UTC' } }, 'schedule.cron');
    await bad(
      { schedule: { cron: '0 8 * * *', timezone: 'Europe/Atlantis' } },
      'schedule.timezone',
    );
    await bad({ target: { mode: 'append' } }, 'target.chatId');
    const unknown = await t.http
      .post('/api/tasks')
      .set(u.auth)
      .send(dailyTask({ prompt: { modelId: 'gpt-0', messages: [{ role: 'user', content: 'x' }] } }))
      .expect(400);
    expect(unknown.body.code).toBe('UNKNOWN_MODEL');
    const unsupported = await t.http
      .post('/api/tasks')
      .set(u.auth)
      .send(
        dailyTask({
          prompt: {
            modelId: 'claude-haiku-4-5',
            messages: [{ role: 'user', content: 'x' }],
            settings: { presencePenalty: 1 },
          },
        }),
      )
      .expect(400);
    expect(unsupported.body.code).toBe('UNSUPPORTED_PARAMETER');
    const stranger = await newUser(t);
    const chat = await t.http.post('/api/chats').set(stranger.auth).send({ title: 'Mine' });
    await t.http
      .post('/api/tasks')
      .set(u.auth)
      .send(dailyTask({ target: { mode: 'append', chatId: chat.body.data.id } }))
      .expect(404);
  });

  it('applies the plan limits: task count (409) and least interval (400)', async () => {
    const free = await userOn('FREE');
    await createTask(t, free, dailyTask());
    await createTask(t, free, dailyTask());
    const third = await t.http.post('/api/tasks').set(free.auth).send(dailyTask()).expect(409);
    expect(third.body).toMatchObject({ code: 'TASK_LIMIT_REACHED' });
    const often = async (u: TestUser, cron: string) =>
      t.http
        .post('/api/tasks')
        .set(u.auth)
        .send(dailyTask({ schedule: { cron, timezone: 'UTC' } }));
    const basic = await userOn('BASIC');
    const tooOften = await often(basic, '*/10 * * * *');
    expect(tooOften.body).toMatchObject({ code: 'SCHEDULE_TOO_FREQUENT' });
    expect(tooOften.body.error).toContain('15 minutes');
    expect((await often(basic, '*/15 * * * *')).status).toBe(201);
    const pro = await userOn('PRO');
    expect((await often(pro, '*/4 * * * *')).status).toBe(400);
    expect((await often(pro, '*/5 * * * *')).status).toBe(201);
    expect((await often(free, '*/30 * * * *')).status).toBe(400);
  });

  it('runs a due task once, in a new chat titled with its name and date, metered', async () => {
    const u = await userOn('PRO');
    const task = await createTask(
      t,
      u,
      dailyTask({ schedule: { cron: '*/5 * * * *', timezone: 'UTC' } }),
    );
    expect(task.nextRunAt).toBe('2031-03-02T07:00:00.000Z');
    expect(await tick()).toBe(0); // not due yet
    clock.tick(180); // 07:01
    // Two passes at once (as a manual tick beside the scheduled one): one of them claims it.
    const passes = await Promise.all([tick(), tick()]);
    expect(passes[0] + passes[1]).toBe(1);
    expect(await tick()).toBe(0); // the due time was claimed
    const [queued] = await runsOf(u, task.id);
    expect(queued).toMatchObject({ trigger: 'schedule', scheduledFor: '2031-03-02T07:00:00.000Z' });
    const run = await finished(t, u, task.id, queued.id);
    expect(run).toMatchObject({ status: 'succeeded', cost: expect.any(Number), error: null });
    expect(run.cost).toBeGreaterThan(0);
    expect(run.steps).toEqual([
      expect.objectContaining({
        name: 'prompt',
        status: 'succeeded',
        output: 'Hello from the test model.',
      }),
    ]);
    const chat = await t.http.get(`/api/chats/${run.chatId}`).set(u.auth).expect(200);
    expect(chat.body.data.title).toBe('Morning digest · 2031-03-02');
    const [ledger] = await t.db.query(
      `SELECT count(*)::int AS n, -SUM(amount)::int AS spent FROM credit_transactions
       WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.user.id],
    );
    expect(ledger).toEqual({ n: 1, spent: run.cost });
    await balanced(t, u);
    const detail = await t.http.get(`/api/tasks/${task.id}`).set(u.auth).expect(200);
    expect(detail.body.nextRunAt).toBe('2031-03-02T07:05:00.000Z');
  });

  it('makes one run, not a burst, for the runs missed while every instance was down', async () => {
    const u = await userOn('PRO');
    const task = await createTask(
      t,
      u,
      dailyTask({ schedule: { cron: '*/5 * * * *', timezone: 'UTC' } }),
    );
    clock.tick(24 * 3600); // a day down: 288 occurrences missed
    expect(await tick()).toBe(1);
    expect(await tick()).toBe(0);
    const runs = await runsOf(u, task.id);
    expect(runs).toHaveLength(1);
    await finished(t, u, task.id, runs[0].id);
    const detail = await t.http.get(`/api/tasks/${task.id}`).set(u.auth).expect(200);
    expect(new Date(detail.body.nextRunAt).getTime()).toBeGreaterThan(clock.now().getTime());
  });

  it('appends to a chat on demand, and stops scheduling when paused', async () => {
    const u = await userOn('PRO');
    const chat = (await t.http.post('/api/chats').set(u.auth).send({ title: 'Stand-ups' })).body
      .data;
    const task = await createTask(
      t,
      u,
      dailyTask({
        schedule: { cron: '*/5 * * * *', timezone: 'UTC' },
        target: { mode: 'append', chatId: chat.id },
      }),
    );
    for (let i = 0; i < 2; i++) {
      const run = await finished(t, u, task.id, (await runNow(t, u, task.id)).id);
      expect(run).toMatchObject({ status: 'succeeded', trigger: 'manual', chatId: chat.id });
    }
    const messages = await t.http.get(`/api/chats/${chat.id}/messages`).set(u.auth).expect(200);
    expect(messages.body.data.map((m: { role: string }) => m.role)).toEqual([
      'USER',
      'ASSISTANT',
      'USER',
      'ASSISTANT',
    ]);
    const paused = await t.http.post(`/api/tasks/${task.id}/pause`).set(u.auth).expect(200);
    expect(paused.body).toMatchObject({ enabled: false, nextRunAt: null });
    clock.tick(3600);
    expect(await tick()).toBe(0);
    expect((await t.http.get(`/api/tasks/${task.id}`).set(u.auth)).body.nextRuns).toEqual([]);
    const resumed = await t.http.post(`/api/tasks/${task.id}/resume`).set(u.auth).expect(200);
    expect(new Date(resumed.body.nextRunAt).getTime()).toBeGreaterThan(clock.now().getTime());
  });

  it('skips a run the owner cannot afford, with the code, and charges nothing', async () => {
    const u = await userOn('PRO', 0);
    const task = await createTask(t, u, dailyTask());
    const run = await finished(t, u, task.id, (await runNow(t, u, task.id)).id);
    expect(run).toMatchObject({
      status: 'skipped',
      cost: 0,
      error: { code: 'INSUFFICIENT_CREDITS', message: expect.stringContaining('step "prompt"') },
    });
    expect(p.openai.requests).toHaveLength(0);
    await balanced(t, u);
  });

  it('pauses itself after 5 failed or skipped runs in a row', async () => {
    const u = await userOn('PRO');
    const task = await createTask(t, u, dailyTask());
    p.openai.reply = { status: 400 };
    for (let i = 0; i < 5; i++) {
      const run = await finished(t, u, task.id, (await runNow(t, u, task.id)).id);
      expect(run).toMatchObject({ status: 'failed', cost: 0, error: { code: 'UNKNOWN_ERROR' } });
    }
    const after = await t.http.get(`/api/tasks/${task.id}`).set(u.auth).expect(200);
    expect(after.body).toMatchObject({
      enabled: false,
      nextRunAt: null,
      consecutiveFailures: 5,
      pausedReason: expect.stringContaining('5 runs in a row'),
    });
    await balanced(t, u);
  });

  it('retries provider errors per Limits 6 before failing the run', async () => {
    const u = await userOn('PRO');
    const task = await createTask(t, u, dailyTask());
    p.openai.reply = { status: 500 };
    const run = await finished(t, u, task.id, (await runNow(t, u, task.id)).id);
    expect(run).toMatchObject({
      status: 'failed',
      cost: 0,
      error: { code: 'SERVICE_UNAVAILABLE' },
    });
    expect(p.openai.requests).toHaveLength(3);
    await balanced(t, u);
  });

  it('keeps the ledger invariant after a burst of runs', async () => {
    const u = await userOn('PRO', 1000);
    const task = await createTask(t, u, dailyTask());
    const queued = await Promise.all(Array.from({ length: 8 }, () => runNow(t, u, task.id)));
    const runs = await Promise.all(queued.map((r) => finished(t, u, task.id, r.id)));
    expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
    const [row] = await t.db.query(
      `SELECT count(*)::int AS n, -SUM(amount)::int AS spent FROM credit_transactions
       WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.user.id],
    );
    expect(row).toEqual({ n: 8, spent: runs.reduce((n, r) => n + r.cost, 0) });
    await balanced(t, u);
  });

  it('hands over a run left queued without a job (e.g. recorded on an instance without the queue)', async () => {
    const u = await userOn('PRO');
    const task = await createTask(t, u, dailyTask());
    const [row] = await t.db.query(
      `INSERT INTO task_runs ("taskId", "userId", trigger, "createdAt")
       VALUES ($1, $2, 'manual', now() - interval '2 minutes') RETURNING id`,
      [task.id, u.user.id],
    );
    await tick();
    const run = await finished(t, u, task.id, row.id);
    expect(run.status).toBe('succeeded');
    await balanced(t, u);
  });

  it('pages the run history', async () => {
    const u = await userOn('PRO');
    const task = await createTask(t, u, dailyTask());
    for (let i = 0; i < 3; i++) await finished(t, u, task.id, (await runNow(t, u, task.id)).id);
    const first = await t.http.get(`/api/tasks/${task.id}/runs?limit=2`).set(u.auth).expect(200);
    expect(first.body.data).toHaveLength(2);
    const rest = await t.http
      .get(`/api/tasks/${task.id}/runs?limit=2&cursor=${first.body.nextCursor}`)
      .set(u.auth)
      .expect(200);
    expect(rest.body).toMatchObject({ nextCursor: null });
    expect(rest.body.data).toHaveLength(1);
  });
});
