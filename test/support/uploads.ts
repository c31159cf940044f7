import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './wait';

/** The first bytes of a PNG (signature and IHDR length): enough for the content sniffer. */
export const PNG_BYTES = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  Buffer.from('IHDR'),
  randomBytes(64),
]);

export interface Part {
  name: string;
  /** Sent verbatim (UTF-8) in `filename="..."`, so traversal names reach the server as is. */
  filename?: string;
  type?: string;
  body: Buffer | string;
}

/**
 * A multipart/form-data body built by hand (supertest's `.attach` strips directories from file
 * names); send it with `.set('Content-Type', type).send(body)`.
 */
export function multipart(parts: Part[]): { type: string; body: Buffer } {
  const boundary = `----e2e${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"`;
    head += `\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(head), Buffer.from(p.body), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { type: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(chunks) };
}

/** The port of the app's HTTP server, listening on loopback (started on first use). */
export async function portOf(app: INestApplication): Promise<number> {
  const server = app.getHttpServer() as Server;
  if (!server.listening) await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

/**
 * GET with the path sent byte for byte (supertest normalises `..` and `%2e%2e` away, as
 * browsers do; an attacker's client does not).
 */
export async function rawGet(
  app: INestApplication,
  path: string,
): Promise<{ status: number; body: string }> {
  const port = await portOf(app);
  return new Promise((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

/** Sorted names in `dir`. */
export const filesIn = (dir: string): string[] => readdirSync(dir).sort();

/** Polls `check` until it is true, bounded by the calling test's timeout only (see waitFor). */
export const eventually = (check: () => boolean): Promise<boolean> => waitFor(check);
