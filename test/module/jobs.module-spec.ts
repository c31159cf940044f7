import { CreditHoldsService } from '../../src/credits/credit-holds.service';
import { CreditsModule } from '../../src/credits/credits.module';
import { CreditsService } from '../../src/credits/credits.service';
import { HOLD_SWEEP_QUEUE } from '../../src/credits/hold-sweep.service';
import { JobsModule } from '../../src/jobs/jobs.module';
import { JobsService } from '../../src/jobs/jobs.service';
import type { NoData, QueuedJob } from '../../src/jobs/jobs.types';
import { bootModule, type ModuleApp } from '../support/module-app';
import { waitFor } from '../support/wait';

// This file's ad-hoc queues: registered by the tests after boot, so not declared (declareQueue).
declare module '../../src/jobs/jobs.types' {
  interface JobMap {
    'test-once': { n: number };
    'test-retry': NoData;
    'test-unique': { k: string };
    'test-cron': { digest: boolean };
    'test-nobody': NoData;
  }
}

/** Resolves when `done()` holds, polled (no timing assertion: the test's timeout bounds it). */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  expect(await waitFor(done)).toBe(true);
}

// The job queue with the credits module, whose hold sweep is a queue of its own (the tasks'
// tick is checked by the tasks files, which boot the whole app).
describe('Job queue (src/jobs over pg-boss)', () => {
  let t: ModuleApp;
  let jobs: JobsService;

  beforeAll(async () => {
    t = await bootModule([JobsModule, CreditsModule], { JOBS_POLL_INTERVAL_SECONDS: '0.5' });
    jobs = t.app.get(JobsService);
  });
  afterAll(() => t.close());

  it('runs in its own schema of the service database, started with the app', async () => {
    expect(jobs.started).toBe(true);
    const [row] = await t.db.query(
      `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'pgboss'`,
    );
    expect(row.n).toBeGreaterThan(0);
  });

  it('hands an enqueued job to its handler once', async () => {
    const seen: QueuedJob<{ n: number }>[] = [];
    await jobs.registerHandler('test-once', async (job) => {
      seen.push(job);
    });
    const id = await jobs.enqueue('test-once', { n: 7 });
    await until(() => seen.length === 1);
    expect(seen[0]).toMatchObject({ id, queue: 'test-once', data: { n: 7 }, retryCount: 0 });
  });

  it('retries a failing job, then keeps it as failed in the history', async () => {
    const attempts: number[] = [];
    await jobs.registerHandler(
      'test-retry',
      async (job) => {
        attempts.push(job.retryCount);
        throw new Error('boom');
      },
      { retryLimit: 1, retryDelaySeconds: 1, retryBackoff: false },
    );
    const id = await jobs.enqueue('test-retry', {});
    await until(async () => {
      const [row] = await t.db.query(`SELECT state FROM pgboss.job WHERE id = $1`, [id]);
      return row?.state === 'failed';
    });
    expect(attempts).toEqual([0, 1]);
  });

  it('keeps one waiting job per singletonKey on a unique queue', async () => {
    const seen: string[] = [];
    await jobs.registerHandler(
      'test-unique',
      async (job) => {
        seen.push(job.data.k);
      },
      { unique: true },
    );
    const later = new Date(Date.now() + 60_000);
    const first = await jobs.enqueue(
      'test-unique',
      { k: 'a' },
      { singletonKey: 'a', startAfter: later },
    );
    const second = await jobs.enqueue('test-unique', { k: 'a' }, { singletonKey: 'a' });
    const other = await jobs.enqueue('test-unique', { k: 'b' }, { singletonKey: 'b' });
    expect(first).toEqual(expect.any(String));
    expect(second).toBeNull();
    expect(other).toEqual(expect.any(String));
    await until(() => seen.includes('b'));
  });

  it('keeps a cron schedule of a queue in the database (pg-boss sends its jobs)', async () => {
    await jobs.registerHandler('test-cron', async () => undefined);
    await jobs.schedule('test-cron', '0 8 * * *', { digest: true }, { timezone: 'Europe/Paris' });
    // Features schedule their own jobs too (the task-run sweep): this test reads only its own.
    const mine = `SELECT name, cron, timezone, data FROM pgboss.schedule WHERE name = 'test-cron'`;
    expect(await t.db.query(mine)).toEqual([
      { name: 'test-cron', cron: '0 8 * * *', timezone: 'Europe/Paris', data: { digest: true } },
    ]);
    await jobs.unschedule('test-cron');
    expect(await t.db.query(mine)).toEqual([]);
  });

  it('refuses a queue without a handler, and a second handler for a queue', async () => {
    await expect(jobs.enqueue('test-nobody', {})).rejects.toThrow(/not registered/);
    await expect(jobs.schedule('test-nobody', '* * * * *', {})).rejects.toThrow(/not registered/);
    await expect(jobs.registerHandler('test-once', async () => undefined)).rejects.toThrow(
      /already/,
    );
  });

  it('schedules the hold sweep every minute at boot, on a singleton queue', async () => {
    const schedules = await t.db.query(`SELECT name, cron FROM pgboss.schedule WHERE name = $1`, [
      HOLD_SWEEP_QUEUE,
    ]);
    expect(schedules).toEqual([{ name: 'credits.hold-sweep', cron: '* * * * *' }]);
    const queues = await t.db.query(`SELECT name, policy FROM pgboss.queue WHERE name = $1`, [
      HOLD_SWEEP_QUEUE,
    ]);
    expect(queues).toEqual([{ name: 'credits.hold-sweep', policy: 'stately' }]);
  });

  it('returns an expired hold when the sweep queue is triggered once', async () => {
    const [{ id }] = await t.db.query(
      `INSERT INTO users (email, name) VALUES ('jobs-hold@example.com', 'Jobs') RETURNING id`,
    );
    await t.app.get(CreditsService).adjustTo(id, 50, 'test balance');
    await t.app.get(CreditHoldsService).hold(id, 20, 'jobs-expired');
    await t.db.query(
      `UPDATE credit_holds SET "expiresAt" = now() - interval '1 second' WHERE "requestId" = 'jobs-expired'`,
    );
    await jobs.enqueue(HOLD_SWEEP_QUEUE, {});
    await until(async () => {
      const [row] = await t.db.query(
        `SELECT count(*)::int AS n FROM credit_holds WHERE "requestId" = 'jobs-expired'`,
      );
      return row.n === 0;
    });
    const [user] = await t.db.query(`SELECT credits FROM users WHERE id = $1`, [id]);
    expect(user.credits).toBe(50);
  });
});

/** Never called: each line must fail to compile (a queue's name decides its payload). */
export function typedQueues(jobs: JobsService): void {
  // @ts-expect-error a queue that no JobMap entry names
  void jobs.enqueue('nobody', {});
  // @ts-expect-error the payload of another queue
  void jobs.enqueue('test-once', { k: 'a' });
  // @ts-expect-error a handler of another payload
  void jobs.registerHandler('test-unique', async (_job: QueuedJob<{ n: number }>) => undefined);
}
