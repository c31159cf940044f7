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
 * For the primary process of node:cluster (the performance issue's WEB_CONCURRENCY): the sum of
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
