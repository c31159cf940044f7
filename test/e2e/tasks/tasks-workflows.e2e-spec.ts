import { TICK_QUEUE } from '../../../src/tasks/task-scheduler';
import { TeamMembersService } from '../../../src/teams/team-members.service';
import { UsersService } from '../../../src/users/users.service';
import {
  newChat,
  newTeam,
  newUser,
  sessionOf,
  type TestUser,
  fundPool,
} from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitFor } from '../../support/wait';
import { balanced, createTask, dailyTask, finished, runNow, stopTaskTick } from './tasks.helpers';

const say = (content: string) => [{ role: 'user', content }];

describe('Workflows, cancellation and team targets', () => {
  let t: TestApp;
  let p: Providers;
  /** The tick's schedule and queue as the app left them at boot (before the tests stop it). */
  let bootTick: unknown[];

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({
      ...p.env,
      JOBS_POLL_INTERVAL_SECONDS: '0.5',
      TASKS_CANCEL_POLL_MS: '100',
    });
    bootTick = await t.db.query(
      `SELECT s.name, s.cron, q.policy FROM pgboss.schedule s JOIN pgboss.queue q USING (name)
       WHERE s.name = $1`,
      [TICK_QUEUE],
    );
    await stopTaskTick(t);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  it('schedules the task tick every minute at boot, on a singleton queue', () => {
    expect(bootTick).toEqual([{ name: 'tasks.tick', cron: '* * * * *', policy: 'stately' }]);
  });

  const proUser = async (credits = 100): Promise<TestUser> => {
    const u = await newUser(t, { credits });
    await t.app.get(UsersService).setPlan(u.user.id, 'PRO');
    return u;
  };
  const consumption = async (u: TestUser) =>
    (
      await t.db.query(
        `SELECT amount, description FROM credit_transactions
         WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt"`,
        [u.user.id],
      )
    ).map((r: { amount: number; description: string }) => r);

  it('runs 3 steps in order with an input, each fed the previous output and metered alone', async () => {
    const u = await proUser();
    const task = await createTask(
      t,
      u,
      dailyTask({
        name: 'Brief',
        prompt: {
          modelId: 'gpt-4o',
          steps: [
            { name: 'outline', messages: say('Outline {{input}}') },
            { name: 'draft', messages: say('Draft from: {{steps.outline.output}}') },
            {
              name: 'summary',
              modelId: 'gpt-4o-mini',
              messages: say('Summarise {{steps.draft.output}} about {{ input }}'),
            },
          ],
        },
      }),
    );
    p.openai.reply = { text: 'OUT' };
    const run = await finished(t, u, task.id, (await runNow(t, u, task.id, 'ACME')).id);
    expect(run.status).toBe('succeeded');
    expect(run.steps.map((s) => [s.name, s.status, s.output])).toEqual([
      ['outline', 'succeeded', 'OUT'],
      ['draft', 'succeeded', 'OUT'],
      ['summary', 'succeeded', 'OUT'],
    ]);
    for (const s of run.steps) {
      expect(s.usage).toEqual({ promptTokens: 10, completionTokens: 20 });
      expect(s.cost).toBeGreaterThan(0);
    }
    expect(run.cost).toBe(run.steps.reduce((n, s) => n + s.cost, 0));
    const sent = p.openai.requests.map((r) => [r.body.model, r.body.messages.at(-1).content]);
    expect(sent).toEqual([
      ['gpt-4o', 'Outline ACME'],
      ['gpt-4o', 'Draft from: OUT'],
      ['gpt-4o-mini', 'Summarise OUT about ACME'],
    ]);
    const ledger = await consumption(u);
    expect(ledger.map((r: { amount: number }) => -r.amount)).toEqual(run.steps.map((s) => s.cost));
    const messages = await t.http.get(`/api/chats/${run.chatId}/messages`).set(u.auth).expect(200);
    expect(messages.body.data.map((m: { content: string }) => m.content)).toEqual([
      'Outline ACME',
      'OUT',
      'Draft from: OUT',
      'OUT',
      'Summarise OUT about ACME',
      'OUT',
    ]);
    await balanced(t, u);
  });

  it('refuses a step that references a later step, itself or an unknown one (400)', async () => {
    const u = await proUser();
    const res = await t.http
      .post('/api/tasks')
      .set(u.auth)
      .send(
        dailyTask({
          prompt: {
            modelId: 'gpt-4o',
            steps: [
              { name: 'a', messages: say('Use {{steps.b.output}}') },
              { name: 'b', messages: say('Use {{steps.a.output}}') },
            ],
          },
        }),
      )
      .expect(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.error).toContain('prompt.steps.0.messages.0.content');
    expect(res.body.error).toContain('does not run before it');
    const one = await t.http
      .post('/api/tasks')
      .set(u.auth)
      .send(
        dailyTask({ prompt: { modelId: 'gpt-4o', steps: [{ name: 'a', messages: say('x') }] } }),
      )
      .expect(400);
    expect(one.body.error).toContain('prompt.steps');
    const both = await t.http
      .post('/api/tasks')
      .set(u.auth)
      .send(
        dailyTask({
          prompt: {
            modelId: 'gpt-4o',
            messages: say('x'),
            steps: [
              { name: 'a', messages: say('x') },
              { name: 'b', messages: say('y') },
            ],
          },
        }),
      )
      .expect(400);
    expect(both.body.error).toContain('either messages');
  });

  it('stops at a failing middle step, naming it; the first step’s charge stands', async () => {
    const u = await proUser();
    const task = await createTask(
      t,
      u,
      dailyTask({
        prompt: {
          modelId: 'gpt-4o',
          steps: [
            { name: 'first', messages: say('one') },
            {
              name: 'middle',
              modelId: 'claude-haiku-4-5',
              messages: say('{{steps.first.output}}'),
            },
            { name: 'last', messages: say('{{steps.middle.output}}') },
          ],
        },
      }),
    );
    p.anthropic.reply = { status: 400 };
    const run = await finished(t, u, task.id, (await runNow(t, u, task.id)).id);
    expect(run).toMatchObject({
      status: 'failed',
      error: { code: 'UNKNOWN_ERROR', message: expect.stringContaining('step "middle"') },
    });
    expect(run.steps.map((s) => [s.name, s.status])).toEqual([
      ['first', 'succeeded'],
      ['middle', 'failed'],
    ]);
    expect(run.cost).toBe(run.steps[0].cost);
    expect(p.openai.requests).toHaveLength(1);
    expect((await consumption(u)).map((r: { amount: number }) => -r.amount)).toEqual([run.cost]);
    await balanced(t, u);
  });

  it('cancels a running run: the call is aborted and the partial output charged', async () => {
    const u = await proUser();
    const task = await createTask(t, u, dailyTask());
    // Five chunks, then silence: only the cancel ends the call.
    p.openai.reply = { text: 'word '.repeat(40), chunks: 40, stallAfterChunks: 5 };
    const queued = await runNow(t, u, task.id);
    await finished(t, u, task.id, queued.id, (r) => r.status === 'running');
    expect(await waitFor(() => p.openai.requests[0]?.textChunksSent === 5)).toBe(true);
    // In flight: the worst case is held, as for any AI reply.
    const [hold] = await t.db.query(`SELECT amount FROM credit_holds WHERE "userId" = $1`, [
      u.user.id,
    ]);
    expect(hold.amount).toBeGreaterThan(0);
    const asked = await t.http
      .post(`/api/tasks/${task.id}/runs/${queued.id}/cancel`)
      .set(u.auth)
      .expect(200);
    expect(asked.body.status).toBe('running');
    const run = await finished(t, u, task.id, queued.id);
    expect(run.status).toBe('cancelled');
    const [step] = run.steps;
    expect(step.status).toBe('cancelled');
    expect(step.output.length).toBeGreaterThan(0);
    expect(step.output.length).toBeLessThan('word '.repeat(40).length);
    expect(run.cost).toBe(step.cost);
    expect(run.cost).toBeGreaterThan(0);
    expect(p.openai.requests[0].aborted).toBe(true);
    const [entry] = await consumption(u);
    expect(entry).toEqual({ amount: -run.cost, description: expect.stringContaining('estimated') });
    await balanced(t, u);
    // a finished run cannot be cancelled
    const again = await t.http
      .post(`/api/tasks/${task.id}/runs/${queued.id}/cancel`)
      .set(u.auth)
      .expect(409);
    expect(again.body.code).toBe('CONFLICT');
  });

  it('appends to a team-shared chat, then fails with NOT_FOUND and pauses when access is lost', async () => {
    const owner = await proUser();
    const member = await proUser();
    const team = await newTeam(t, owner, { members: [[member, 'MEMBER']] });
    await fundPool(t, team.id); // the pool pays for calls in the team's chat
    const chat = await newChat(t, owner, { title: 'Team notes', teamId: team.id });
    const task = await createTask(
      t,
      member,
      dailyTask({ target: { mode: 'append', chatId: chat.id } }),
    );
    const ok = await finished(t, member, task.id, (await runNow(t, member, task.id)).id);
    expect(ok).toMatchObject({ status: 'succeeded', chatId: chat.id });
    const ownerBefore = await t.db.query(
      `SELECT count(*)::int AS n FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [owner.user.id],
    );
    expect(ownerBefore[0].n).toBe(0); // the task's owner paid, not the chat's
    await t.app.get(TeamMembersService).remove(sessionOf(owner), team.id, member.user.id);
    const lost = await finished(t, member, task.id, (await runNow(t, member, task.id)).id);
    expect(lost).toMatchObject({ status: 'failed', cost: 0, error: { code: 'NOT_FOUND' } });
    const after = await t.http.get(`/api/tasks/${task.id}`).set(member.auth).expect(200);
    expect(after.body).toMatchObject({
      enabled: false,
      pausedReason: expect.stringContaining('NOT_FOUND'),
    });
    await balanced(t, member);
  });
});
