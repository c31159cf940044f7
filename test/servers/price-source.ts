import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local price source: serves `list` (a price list in LiteLLM's
 * `model_prices_and_context_window.json` format, set per test) as JSON at
 * `/model_prices_and_context_window.json`, 404 elsewhere. `requests` counts what arrived.
 */
export class PriceSourceServer {
  list: Record<string, object> = {};
  requests = 0;
  url = '';
  private server?: Server;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.requests++;
      if (req.url !== '/model_prices_and_context_window.json') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.list));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}/model_prices_and_context_window.json`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
