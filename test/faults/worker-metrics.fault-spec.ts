import { randomBytes } from 'node:crypto';
import { moved, parseMetrics, sample, type Samples } from '../support/metrics';
import { BOOT_MS, freePort, spawnApp, type SpawnedApp, waitForStatus } from '../support/spawn-app';
import { adminQuery, databaseUrl, templateDb, TEST_DB_PREFIX } from '../support/test-db';
import { waitFor } from '../support/wait';
import { call } from './support/http';
import { SERVICE_SECRET } from './support/service';

const TOKEN = 'worker-metrics-token-0123';

/**
 * Prometheus metrics with WEB_CONCURRENCY workers: `/metrics` answers the sum over every worker
 * whichever worker the scrape reaches (the primary aggregates), and METRICS_PORT is served by the
 * primary. Child processes with WEB_CONCURRENCY=2 on a database of the test server.
 */
// Each test boots the service once: one boot's allowance plus as much again for its work.
jest.setTimeout(2 * BOOT_MS);

describe('metrics across WEB_CONCURRENCY workers', () => {
  let dbName: string;
  const apps: SpawnedApp[] = [];

  beforeAll(async () => {
    dbName = `${TEST_DB_PREFIX}${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE "${dbName}" TEMPLATE "${templateDb()}"`);
  });
  afterAll(async () => {
    for (const app of apps)
      if (app.child.exitCode === null) {
        app.child.kill('SIGKILL');
        await app.exited;
      }
    await adminQuery(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  });

  async function start(env: Record<string, string>) {
    const port = await freePort();
    const app = spawnApp({
      DATABASE_URL: databaseUrl(dbName),
      DB_MIGRATIONS_RUN: 'false',
      PORT: String(port),
      AUTH_SECRET: SERVICE_SECRET,
      WEB_CONCURRENCY: '2',
      ...env,
    });
    apps.push(app);
    const base = `http://127.0.0.1:${port}`;
    await waitForStatus(app, `${base}/health/ready`, 200);
    // The first worker answers before the second listens; the primary's one ready line says
    // that every worker does (a scrape before that waits on a worker still starting).
    await waitFor(() => app.output().includes('API listening on port'));
    return { app, base };
  }

  it('sums both workers on /metrics of the API port, whichever answers; exits 0 on SIGTERM', async () => {
    const { app, base } = await start({ METRICS_TOKEN: TOKEN });
    const scrape = async (): Promise<Samples> => {
      const res = await call(base, 'GET', '/metrics', {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.status).toBe(200);
      return parseMetrics(res.text);
    };
    const route = { method: 'GET', route: '/api/ai/models', status_class: '2xx' };
    const before = await scrape();
    // One connection each: the primary hands connections to the workers in turn.
    for (let i = 0; i < 10; i++)
      expect((await call(base, 'GET', '/api/ai/models')).status).toBe(200);
    // Two scrapes, so both workers answer one: each sees all ten requests.
    const first = await scrape();
    const second = await scrape();
    expect(moved(before, first, 'http_request_duration_seconds_count', route)).toBe(10);
    expect(moved(before, second, 'http_request_duration_seconds_count', route)).toBe(10);
    // A database gauge is one worker's reading, not the sum.
    expect(sample(second, 'credit_holds_open')).toBe(0);
    expect(sample(second, 'ledger_invariant_violations')).toBe(0);

    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);
  });

  it('serves METRICS_PORT from the primary, the sum of both workers', async () => {
    const metricsPort = await freePort();
    const { base } = await start({ METRICS_PORT: String(metricsPort) });
    expect((await call(base, 'GET', '/metrics')).status).toBe(404);
    const scrape = async () =>
      parseMetrics(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text());
    const route = { method: 'GET', route: '/api/ai/models', status_class: '2xx' };
    const before = await scrape();
    for (let i = 0; i < 6; i++) await call(base, 'GET', '/api/ai/models');
    expect(moved(before, await scrape(), 'http_request_duration_seconds_count', route)).toBe(6);
  });
});
