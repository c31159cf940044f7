import type { DataSource } from 'typeorm';
import { JobsService } from './jobs.service';
import { declaredQueues, declareQueue } from './queue-registry';

declare module './jobs.types' {
  interface JobMap {
    'spec-handled': { n: number };
    'spec-orphan-a': { n: number };
    'spec-orphan-b': { n: number };
  }
}

const HANDLED = declareQueue('spec-handled');

/**
 * The boot check alone: the queue is disabled, so the check is all that runs at bootstrap and no
 * database is reached (the DataSource is never read).
 */
function jobsService(): JobsService {
  const jobs = {
    enabled: false,
    pollIntervalSeconds: 2,
    superviseIntervalSeconds: 60,
    poolSize: 4,
  };
  return new JobsService({} as DataSource, jobs);
}

/**
 * A service with a handler for HANDLED and for every queue that modules loaded earlier in the
 * same registry declared (a whole-suite run shares it between spec files), so the check sees
 * only this file's queues missing.
 */
async function withHandlers(): Promise<JobsService> {
  const jobs = jobsService();
  for (const queue of declaredQueues())
    if (!queue.startsWith('spec-') || queue === HANDLED)
      await jobs.registerHandler(queue, async () => undefined);
  return jobs;
}

describe('JobsService boot check', () => {
  it('starts when every declared queue has a handler', async () => {
    const jobs = await withHandlers();
    await expect(jobs.onApplicationBootstrap()).resolves.toBeUndefined();
  });

  it('refuses to start, naming each declared queue without a handler', async () => {
    declareQueue('spec-orphan-a');
    declareQueue('spec-orphan-b');
    const jobs = await withHandlers();
    await expect(jobs.onApplicationBootstrap()).rejects.toThrow(
      'job queues without a handler: spec-orphan-a, spec-orphan-b',
    );
  });

  it('refuses a queue declared twice, and a queue both unique and singleton', async () => {
    expect(() => declareQueue('spec-handled')).toThrow(/declared twice/);
    await expect(
      jobsService().registerHandler(HANDLED, async () => undefined, {
        unique: true,
        singleton: true,
      }),
    ).rejects.toThrow(/both unique and singleton/);
  });
});
