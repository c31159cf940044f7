import { PgBoss } from 'pg-boss';
import { JOBS_SCHEMA } from '../../src/jobs/jobs.service';
import type { JobMap, QueueName } from '../../src/jobs/jobs.types';

/**
 * Sends one job to `queue` of the job queue in the database at `databaseUrl`, from outside the
 * service (instances running as child processes): what a cron occurrence of a scheduled queue
 * does, without waiting for the minute. Resolves with the job's id, or null when the queue's
 * policy dropped it (a singleton queue already holding a waiting job).
 */
export async function sendJob<K extends QueueName>(
  databaseUrl: string,
  queue: K,
  data: JobMap[K],
): Promise<string | null> {
  // A client only: no maintenance, no cron, no migration (the service owns the schema).
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: JOBS_SCHEMA,
    max: 1,
    supervise: false,
    schedule: false,
    migrate: false,
  });
  boss.on('error', () => undefined);
  await boss.start();
  try {
    return await boss.send(queue, data as object);
  } finally {
    await boss.stop({ graceful: false });
  }
}
