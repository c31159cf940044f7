import { newUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { createTask, dailyTask, runNow } from './tasks.helpers';

// Its own file: two apps in one process share Passport's strategy, so one app per file.
describe('Scheduled tasks on an instance without the job queue (JOBS_ENABLED=false)', () => {
  let t: TestApp;
  let p: Providers;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, JOBS_ENABLED: 'false' });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });

  it('records a run now as queued, for an instance with the queue to hand over', async () => {
    const u = await newUser(t, { credits: 100 });
    const task = await createTask(t, u, dailyTask());
    const run = await runNow(t, u, task.id);
    expect(run.status).toBe('queued');
    const [row] = await t.db.query(`SELECT status FROM task_runs WHERE id = $1`, [run.id]);
    expect(row.status).toBe('queued');
    expect(p.openai.requests).toHaveLength(0);
  });
});
