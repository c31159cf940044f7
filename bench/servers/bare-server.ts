import { createServer } from 'node:http';

/**
 * The framework's ceiling: a bare Node `http` server answering GET /health/live with the same
 * JSON as the service (`{"status":"ok"}`). Runs in its own process so it does not share an event
 * loop with the load generator. Prints `LISTENING <port>` once bound to 127.0.0.1.
 *
 * For reference it also answers GET /payload with `JSON.stringify` of an object the bench
 * stored with POST /_bench/payload (the service's own GET /api/chats answer), so the cost of
 * that payload alone can be measured.
 */
const health = JSON.stringify({ status: 'ok' });
let payload: unknown = null;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health/live') {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(health),
    });
    res.end(health);
    return;
  }
  if (req.method === 'GET' && req.url === '/payload') {
    const body = JSON.stringify(payload);
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
    return;
  }
  if (req.method === 'POST' && req.url === '/_bench/payload') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(204).end();
    });
    return;
  }
  res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify({ error: 'Not found', code: 'NOT_FOUND' }));
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`LISTENING ${address.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
