import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { S3_PART_BYTES } from '../../../src/uploads/s3.storage';
import { newUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { startUploadDriver, UPLOAD_DRIVERS, type UploadDriver } from '../../support/upload-drivers';
import { eventually, multipart, portOf } from '../../support/uploads';

const MB = 1024 * 1024;
const FILE_BYTES = 50 * MB;

/** Writes `bytes` of text to `path` in 1 MiB chunks (never the whole file in memory). */
async function writeTextFile(path: string, bytes: number): Promise<void> {
  const chunk = Buffer.alloc(MB, 'lorem ipsum dolor sit amet\n');
  const handle = await open(path, 'w');
  try {
    for (let written = 0; written < bytes; written += MB)
      await handle.write(chunk, 0, Math.min(MB, bytes - written));
  } finally {
    await handle.close();
  }
}

/** V8's full collection, exposed at run time (jest starts node without --expose-gc). */
function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * Peak growth of live memory over a baseline while `work` runs: rss and arrayBuffers sampled
 * every 500 ms after two full collections (the second lets V8 finish freeing array buffers),
 * so buffers already released do not count, only what the upload path holds on to.
 */
async function peakGrowth(
  work: () => Promise<unknown>,
): Promise<{ rss: number; buffers: number; samples: number }> {
  const gc = exposeGc();
  const live = () => {
    gc();
    gc();
    return process.memoryUsage();
  };
  const base = live();
  const peak = { rss: 0, buffers: 0, samples: 0 };
  let done = false;
  const sampler = (async () => {
    while (!done) {
      await new Promise((r) => setTimeout(r, 500));
      if (done) break;
      const m = live();
      peak.rss = Math.max(peak.rss, m.rss - base.rss);
      peak.buffers = Math.max(peak.buffers, m.arrayBuffers - base.arrayBuffers);
      peak.samples++;
    }
  })();
  try {
    await work();
  } finally {
    done = true;
    await sampler;
  }
  return peak;
}

/**
 * Node script for a separate process: streams the file at argv[1] to http://127.0.0.1:argv[2]
 * as multipart field `file` with Bearer token argv[3], 1 MiB every 40 ms at most, so the 50 MB
 * take at least 2 s and the memory is sampled (every 500 ms, plus two forced collections) at
 * least twice while the file arrives (at 20 ms a quiet machine once finished within one sample);
 * prints `<status> <body>`.
 */
const UPLOADER = `
const { createReadStream, statSync } = require('node:fs');
const { basename } = require('node:path');
const { request } = require('node:http');
const [path, port, token] = process.argv.slice(1);
const boundary = 'uploader' + Date.now();
const head = Buffer.from('--' + boundary + '\\r\\nContent-Disposition: form-data; name="file"; filename="' +
  basename(path) + '"\\r\\nContent-Type: text/plain\\r\\n\\r\\n');
const tail = Buffer.from('\\r\\n--' + boundary + '--\\r\\n');
const req = request({ host: '127.0.0.1', port, path: '/api/upload', method: 'POST', headers: {
  authorization: 'Bearer ' + token, 'content-type': 'multipart/form-data; boundary=' + boundary,
  'content-length': head.length + statSync(path).size + tail.length } }, (res) => {
  let body = '';
  res.on('data', (d) => (body += d));
  res.on('end', () => process.stdout.write(res.statusCode + ' ' + body));
});
req.write(head);
const file = createReadStream(path, { highWaterMark: 1 << 20 });
file.on('data', (chunk) => {
  file.pause();
  const go = () => setTimeout(() => file.resume(), 40);
  if (req.write(chunk)) go(); else req.once('drain', go);
});
file.on('end', () => req.end(tail));
`;

/** Uploads `path` from a child process, so this process's memory is the server's alone. */
function uploadFromChild(
  path: string,
  port: number,
  token: string,
): Promise<{ status: number; body: { data: { filename: string } } }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['-e', UPLOADER, path, String(port), token]);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', fail);
    child.on('exit', (code) => {
      const at = out.indexOf(' ');
      if (code !== 0 || at < 0) return fail(new Error(`uploader exited ${code}: ${err}`));
      done({ status: Number(out.slice(0, at)), body: JSON.parse(out.slice(at + 1)) });
    });
  });
}

/**
 * Most array-buffer memory an upload may hold on to: disk streams through small buffers; s3
 * holds the part being filled and QUEUE_SIZE (2) parts in flight, 5 MiB each (about 16 MB
 * measured; the bound leaves two parts of headroom, still half of the 50 MB file).
 */
const MAX_BUFFERS = { disk: FILE_BYTES / 10, s3: 5 * S3_PART_BYTES };

describe.each(UPLOAD_DRIVERS)('Uploads: large files stream to %s storage (v1.3.0)', (driver) => {
  let t: TestApp;
  let d: UploadDriver;
  let root: string;
  let source: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'uploads-stream-e2e-'));
    source = join(root, 'big.txt');
    await writeTextFile(source, FILE_BYTES);
    d = await startUploadDriver(driver);
    t = await createTestApp({ ...d.env, UPLOAD_MAX_BYTES: String(64 * MB) });
  });
  afterAll(async () => {
    await t?.close();
    await d?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('stores a 50 MB file while memory grows by far less than its size', async () => {
    const u = await newUser(t);
    // Warm up the route (lazy module loading, pools) so the baseline is steady.
    await t.http.post('/api/upload').set(u.auth).attach('file', Buffer.from('warm'), 'warm.txt');
    const port = await portOf(t.app);
    let res: Awaited<ReturnType<typeof uploadFromChild>> | undefined;
    const growth = await peakGrowth(async () => {
      res = await uploadFromChild(source, port, u.token);
    });
    expect(res!.status).toBe(200);
    const { filename } = res!.body.data;
    expect(filename).toMatch(/^\d+-[0-9a-f]{32}-big\.txt$/);
    expect(d.sizeOf(filename)).toBe(FILE_BYTES);
    const [row] = await t.db.query(`SELECT size FROM uploads WHERE filename = $1`, [filename]);
    expect(Number(row.size)).toBe(FILE_BYTES);
    // Holding the file (memory storage, a buffered body) would add 50 MB of array buffers while
    // it arrives: that is the precise check. RSS is the looser one: the allocator keeps pages
    // freed during the transfer, and this process also runs the local S3 server, so on a busy
    // machine (GC running late) it was seen at up to 1.34× the file; the bound is 1.5×.
    expect(growth.samples).toBeGreaterThanOrEqual(2);
    expect(growth.buffers).toBeLessThan(MAX_BUFFERS[driver]);
    expect(growth.rss).toBeLessThan(1.5 * FILE_BYTES);
  }, 180_000); // 50 MB through the S3 protocol: minutes, not seconds, on a loaded 2-core machine

  it('removes the partial file when the client aborts mid-upload', async () => {
    const u = await newUser(t);
    const { type, body } = multipart([
      { name: 'file', filename: 'aborted.txt', type: 'text/plain', body: 'x'.repeat(MB) },
    ]);
    const before = d.names();
    const req = httpRequest({
      host: '127.0.0.1',
      port: await portOf(t.app),
      path: '/api/upload',
      method: 'POST',
      headers: { ...u.auth, 'Content-Type': type, 'Content-Length': body.length * 10 },
    });
    req.on('error', () => undefined);
    req.write(body.subarray(0, body.length - 100));
    expect(await eventually(() => d.started('-aborted.txt'))).toBe(true);
    req.destroy();
    expect(await eventually(() => d.cleanedUp('-aborted.txt'))).toBe(true);
    expect(d.names()).toEqual(before);
    expect(d.s3?.openMultipartUploads() ?? 0).toBe(0);
    expect(await t.db.query(`SELECT 1 FROM uploads WHERE "userId" = $1`, [u.user.id])).toEqual([]);
  });
});
