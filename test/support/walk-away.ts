import type { INestApplication } from '@nestjs/common';
import http from 'node:http';
import { portOf } from './uploads';

/**
 * POSTs `body` to the streaming route `path` over a raw socket and destroys the connection, as a
 * client that goes away, once the answer's text so far satisfies `until` (default: the first
 * bytes). Resolves when the client has left.
 */
export async function streamThenLeave(
  app: INestApplication,
  path: string,
  headers: Record<string, string>,
  body: object,
  until: (received: string) => boolean = () => true,
): Promise<void> {
  const port = await portOf(app);
  await new Promise<void>((resolve, reject) => {
    let received = '';
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
      },
      (res) =>
        res.on('data', (chunk: Buffer) => {
          received += chunk.toString();
          if (req.destroyed || !until(received)) return;
          req.destroy();
          resolve();
        }),
    );
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end(JSON.stringify(body));
  });
}
