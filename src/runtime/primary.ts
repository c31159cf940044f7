import cluster, { type Worker } from 'node:cluster';
import { type LoadedConfig, sliceOf } from '../config/app.config';
import { databaseConfig } from '../database/database.config';
import { resolveDatabaseUrl, stopEmbeddedDatabase } from '../database/database.module';
import { opsConfig } from '../metrics/metrics.config';
import { startClusterMetrics } from '../metrics/metrics-server';

/** How long the primary waits for its workers to drain on SIGTERM before it kills them (ms). */
const DRAIN_LIMIT_MS = 30_000;

/**
 * The primary of `WEB_CONCURRENCY` workers: it serves nothing itself. It starts
 * the embedded PostgreSQL once when DATABASE_URL is unset and hands its URL to the workers; forks
 * one worker first, so the database is migrated by exactly one process, then the rest; prints
 * one ready line when all listen. A worker that dies before that fails the start (exit 1); one
 * that dies later is replaced. SIGTERM/SIGINT is passed to every worker, each drains its own
 * requests and streams, and the primary exits 0 once all have ended and PostgreSQL is stopped.
 * The workers share the port through node:cluster (the primary accepts, round-robin).
 */
export async function runPrimary(config: LoadedConfig, started: number): Promise<void> {
  const env = { DATABASE_URL: await resolveDatabaseUrl(sliceOf(config, databaseConfig)) };
  // Metrics of all workers, summed: /metrics through any worker, or METRICS_PORT.
  await startClusterMetrics(sliceOf(config, opsConfig));
  let ready = false;
  let stopping = false;

  const fork = (): Worker => {
    const worker = cluster.fork(env);
    worker.on('exit', (code, signal) => {
      if (stopping) return;
      if (!ready) {
        console.error(`A worker exited during start-up (${signal ?? `code ${code}`})`);
        void stop(1);
        return;
      }
      console.error(
        `Worker ${worker.process.pid} died (${signal ?? `code ${code}`}); starting another`,
      );
      fork();
    });
    return worker;
  };
  const listening = (worker: Worker) =>
    new Promise<void>((resolve) => worker.once('listening', () => resolve()));

  const stop = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    const alive = Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => !!w && !w.isDead(),
    );
    const ended = alive.map((w) => new Promise((resolve) => w.once('exit', resolve)));
    for (const w of alive) w.process.kill('SIGTERM');
    const limit = setTimeout(() => alive.forEach((w) => w.process.kill('SIGKILL')), DRAIN_LIMIT_MS);
    await Promise.all(ended);
    clearTimeout(limit);
    await stopEmbeddedDatabase().catch(() => undefined);
    process.exit(exitCode);
  };
  process.once('SIGTERM', () => void stop(0));
  process.once('SIGINT', () => void stop(0));

  await listening(fork());
  await Promise.all(Array.from({ length: config.app.workers - 1 }, () => listening(fork())));
  ready = true;
  const { port, baseUrl } = config.app;
  console.log(
    `API listening on port ${port} (${baseUrl}) with ${config.app.workers} workers after ` +
      `${Date.now() - started} ms; docs at ${baseUrl}/api/docs`,
  );
}
