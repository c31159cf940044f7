import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AggregatorRegistry } from 'prom-client';
import { bearerMatches } from './metrics-auth';

type Scrape = () => Promise<{ contentType: string; body: string }>;

/**
 * A bare HTTP server answering `GET /metrics` (METRICS_PORT), apart from the API so that the
 * port can stay inside the cluster network. `token`, when set, is required as a bearer token.
 * Resolves once listening, with the bound port (0 picks a free one).
 */
export async function startMetricsServer(
  port: number,
  scrape: Scrape,
  token?: string,
): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    if (token && !bearerMatches(req.headers.authorization, token)) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('A valid metrics token is required');
      return;
    }
    scrape().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/**
 * For the primary process of node:cluster (WEB_CONCURRENCY workers): the sum of
 * every worker's registry (gauges read from the database: one worker's value), in Prometheus'
 * text format. Pass it as `scrape` to startMetricsServer in the primary.
 */
export function clusterScrape(): Scrape {
  const aggregator = new AggregatorRegistry();
  return async () => ({
    contentType: aggregator.contentType,
    body: await aggregator.clusterMetrics(),
  });
}

const REQUEST = 'app:metrics-request';
const ANSWER = 'app:metrics-answer';

interface MetricsAnswer {
  type: typeof ANSWER;
  id: string;
  contentType?: string;
  body?: string;
  error?: string;
}

/**
 * In the primary of node:cluster, before forking: answers the workers' `/metrics` requests with
 * the aggregate of every worker (so `/metrics` on the API port, served by whichever worker the
 * scrape reaches, is the whole service), and serves METRICS_PORT itself when set.
 */
export async function startClusterMetrics(ops: { metricsPort?: number; metricsToken?: string }) {
  const all = clusterScrape();
  const listening = new Set<number>();
  cluster.on('listening', (worker) => listening.add(worker.id));
  cluster.on('exit', (worker) => listening.delete(worker.id));
  // A worker still starting (the second one just after the first is ready, or a replacement)
  // cannot answer the aggregator yet, which would fail the whole scrape: wait for it, briefly.
  const scrape: Scrape = async () => {
    await workersListening(listening, STARTING_WORKER_WAIT_MS);
    return all();
  };
  cluster.on('message', (worker, message: { type?: string; id?: string }) => {
    if (message?.type !== REQUEST || typeof message.id !== 'string') return;
    const id = message.id;
    scrape().then(
      (r) => worker.send({ type: ANSWER, id, ...r } satisfies MetricsAnswer),
      (err: Error) => worker.send({ type: ANSWER, id, error: err.message } satisfies MetricsAnswer),
    );
  });
  if (ops.metricsPort !== undefined)
    await startMetricsServer(ops.metricsPort, scrape, ops.metricsToken);
}

/** Longest a scrape waits for workers still starting (under the worker's own 10 s deadline). */
const STARTING_WORKER_WAIT_MS = 9_000;

/** Resolves when every current worker is in `listening` (or one exits), or after `limitMs`. */
function workersListening(listening: Set<number>, limitMs: number): Promise<void> {
  const starting = () =>
    Object.values(cluster.workers ?? {}).some((w) => w && !w.isDead() && !listening.has(w.id));
  if (!starting()) return Promise.resolve();
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(limit);
      cluster.off('listening', check);
      cluster.off('exit', check);
      resolve();
    };
    // Registered after startClusterMetrics' own handlers, so `listening` is already updated.
    const check = () => {
      if (!starting()) finish();
    };
    const limit = setTimeout(finish, limitMs);
    cluster.on('listening', check);
    cluster.on('exit', check);
  });
}

/** In a worker: the whole service's metrics, aggregated by the primary (startClusterMetrics). */
export function scrapeThroughPrimary(
  timeoutMs = 10_000,
): Promise<{ contentType: string; body: string }> {
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      process.off('message', onMessage);
    };
    const onMessage = (m: MetricsAnswer) => {
      if (m?.type !== ANSWER || m.id !== id) return;
      done();
      if (m.error !== undefined) reject(new Error(m.error));
      else resolve({ contentType: m.contentType!, body: m.body! });
    };
    // One scrape's deadline, not a schedule.
    const timer = setTimeout(() => {
      done();
      reject(new Error('The primary did not answer the metrics request'));
    }, timeoutMs);
    process.on('message', onMessage);
    process.send!({ type: REQUEST, id });
  });
}
