import { JobsService } from '../../../src/jobs/jobs.service';
import { TICK_QUEUE } from '../../../src/tasks/task-scheduler';
import { ledgerOf, type TestUser } from '../../support/factories';
import type { TestApp } from '../../support/test-app';
import { waitFor } from '../../support/wait';

/**
 * Removes the app's every-minute task tick, so that only the test makes runs of due tasks
 * (`TaskScheduler.tick()` on the test's clock). Call right after the app starts.
 */
export async function stopTaskTick(t: TestApp): Promise<void> {
  await t.app.get(JobsService).unschedule(TICK_QUEUE);
}

export interface TaskView {
  id: string;
  name: string;
  enabled: boolean;
  nextRunAt: string | null;
  pausedReason: string | null;
}

export interface RunView {
  id: string;
  status: string;
  trigger: string;
  cost: number;
  chatId: string | null;
  error: { code: string; message: string } | null;
  steps: {
    name: string;
    status: string;
    output: string;
    cost: number;
    usage: object | null;
    error: { code: string; message: string } | null;
  }[];
}

/** A daily single-prompt task body; `over` replaces top-level fields. */
export function dailyTask(over: object = {}): Record<string, unknown> {
  return {
    name: 'Morning digest',
    schedule: { cron: '0 8 * * *', timezone: 'UTC' },
    prompt: { modelId: 'gpt-4o', messages: [{ role: 'user', content: 'Summarise the news' }] },
    target: { mode: 'new_chat' },
    ...over,
  };
}

export async function createTask(t: TestApp, u: TestUser, body: object): Promise<TaskView> {
  const res = await t.http.post('/api/tasks').set(u.auth).send(body);
  if (res.status !== 201) throw new Error(`create task: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function runNow(
  t: TestApp,
  u: TestUser,
  taskId: string,
  input?: string,
): Promise<RunView> {
  const res = await t.http.post(`/api/tasks/${taskId}/run`).set(u.auth).send({ input });
  if (res.status !== 202) throw new Error(`run: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Polls the run until it leaves queued/running (jest's timeout bounds the wait). */
export async function finished(
  t: TestApp,
  u: TestUser,
  taskId: string,
  runId: string,
  until = (r: RunView) => r.status !== 'queued' && r.status !== 'running',
): Promise<RunView> {
  let run: RunView | undefined;
  const ended = async () => {
    const res = await t.http.get(`/api/tasks/${taskId}/runs/${runId}`).set(u.auth).expect(200);
    run = res.body;
    return until(res.body);
  };
  expect(await waitFor(ended, Infinity, 100)).toBe(true);
  return run!;
}

/** credits + Σ open holds = Σ ledger, and no hold left open. */
export async function balanced(t: TestApp, u: TestUser): Promise<void> {
  const [{ held }] = await t.db.query(
    `SELECT COALESCE(SUM(amount), 0)::int AS held FROM credit_holds WHERE "userId" = $1`,
    [u.user.id],
  );
  const l = await ledgerOf(t, u.user.id);
  expect(held).toBe(0);
  expect(l.credits + held).toBe(l.ledgerSum);
}
