import { PutObjectCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { createS3Client, S3_PART_BYTES } from '../../../src/uploads/s3.storage';
import { type S3Operation, S3TestServer } from '../../servers/s3-server';
import { newUser, type TestUser } from '../../support/factories';
import { BOOT_MS, spawnApp } from '../../support/spawn-app';
import { createTestApp, type TestApp } from '../../support/test-app';
import { multipart, portOf } from '../../support/uploads';

/**
 * What only the s3 driver does: multipart uploads, conditional writes, a store that fails or
 * is gone, and its boot-time configuration. The scenarios both drivers share run on s3 in
 * uploads.e2e-spec.ts and uploads-streaming.e2e-spec.ts.
 */

// The boot tests spawn the service (the first spawn of a run waits for its build): every
// test here gets one boot's allowance.
jest.setTimeout(BOOT_MS);

const MB = 1024 * 1024;
const PREFIX = 'uploads/';
const fail = (code: string) => ({ success: false, error: expect.any(String), code });
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** Text that is not one repeated byte, so a part out of order would show. */
const text = (bytes: number) =>
  Buffer.from(
    randomBytes(Math.ceil(bytes / 2))
      .toString('hex')
      .slice(0, bytes),
  );

describe('Uploads on S3: multipart, conditional writes, failures', () => {
  let s3: S3TestServer;
  let t: TestApp;

  beforeAll(async () => {
    s3 = await new S3TestServer().start();
    t = await createTestApp({ ...s3.env({ prefix: PREFIX }), UPLOAD_MAX_BYTES: String(32 * MB) });
  });
  afterAll(async () => {
    await t?.close();
    await s3?.destroy();
  });
  beforeEach(() => s3.reset());

  const upload = (u: TestUser, body: Buffer, name = 'doc.txt') =>
    t.http.post('/api/upload').set(u.auth).attach('file', body, name);
  const ops = () => s3.requests.map((r) => r.operation);
  const count = (op: S3Operation) => ops().filter((o) => o === op).length;
  const rowsOf = (u: TestUser) =>
    t.db.query(`SELECT filename, size FROM uploads WHERE "userId" = $1`, [u.user.id]);

  it('stores a file larger than one part as a multipart upload and serves it at its signed link', async () => {
    const u = await newUser(t);
    const body = text(2 * S3_PART_BYTES + 12345);
    const res = await upload(u, body, 'big.txt').expect(200);
    const { filename } = res.body.data as { filename: string };

    expect(ops()).toEqual([
      'HeadObject',
      'CreateMultipartUpload',
      'UploadPart',
      'UploadPart',
      'UploadPart',
      'CompleteMultipartUpload',
    ]);
    const complete = s3.requests.find((r) => r.operation === 'CompleteMultipartUpload')!;
    expect(complete.headers['if-none-match']).toBe('*');
    expect(complete.key).toBe(PREFIX + filename);
    expect(s3.openMultipartUploads()).toBe(0);
    expect(await rowsOf(u)).toEqual([{ filename, size: String(body.length) }]);

    // The signed link of the answer streams from the bucket without a session; the bare path
    // does not.
    await t.http.get(`/uploads/${filename}`).expect(404);
    const got = await t.http.get(res.body.data.url).expect(200);
    expect(got.headers['content-length']).toBe(String(body.length));
    expect(sha(Buffer.from(got.text))).toBe(sha(body));
  });

  it('sends a small file as one conditional PutObject under S3_KEY_PREFIX', async () => {
    const u = await newUser(t);
    const { filename } = (await upload(u, Buffer.from('small')).expect(200)).body.data;
    expect(ops()).toEqual(['HeadObject', 'PutObject']);
    expect(s3.requests[1].headers['if-none-match']).toBe('*');
    expect(s3.read(PREFIX + filename).toString()).toBe('small');
  });

  it.each([
    ['PutObject', 1024],
    ['CompleteMultipartUpload', S3_PART_BYTES + 1],
  ] as const)(
    'answers 409 and keeps the other object when the name is taken during %s',
    async (op, bytes) => {
      const u = await newUser(t);
      // Another instance stores the same key after our HeadObject, before our write lands.
      s3.onRequest = async (r) => {
        if (r.operation === op) await s3.put(r.key, 'the other upload');
      };
      const res = await upload(u, text(bytes), 'race.txt').expect(409);
      expect(res.body).toEqual(fail('CONFLICT'));
      const key = s3.keys().find((k) => k.endsWith('-race.txt'))!;
      expect(s3.read(key).toString()).toBe('the other upload');
      expect(count('DeleteObject')).toBe(0);
      expect(s3.openMultipartUploads()).toBe(0);
      expect(await rowsOf(u)).toEqual([]);
    },
  );

  it.each([
    ['PutObject', 1024],
    ['UploadPart', S3_PART_BYTES + 1],
    ['CompleteMultipartUpload', S3_PART_BYTES + 1],
  ] as const)('answers 503 and records nothing when the store fails %s', async (op, bytes) => {
    const u = await newUser(t);
    const before = s3.keys();
    s3.fault = { status: 500, operations: [op] };
    const res = await upload(u, text(bytes), 'broken.txt').expect(503);
    expect(res.body).toEqual(fail('SERVICE_UNAVAILABLE'));
    expect(res.body.error).toMatch(/storage/i);
    expect(count(op)).toBeGreaterThanOrEqual(3); // the SDK retried
    expect(s3.keys()).toEqual(before);
    expect(s3.openMultipartUploads()).toBe(0);
    expect(await rowsOf(u)).toEqual([]);
  });

  it('answers 503 while the store is down and serves again once it is back', async () => {
    const u = await newUser(t);
    const { filename } = (await upload(u, Buffer.from('kept')).expect(200)).body.data;
    const mine = `/uploads/${filename}`;
    const port = Number(new URL(s3.url).port);
    await s3.stop();
    try {
      expect((await upload(u, Buffer.from('lost'), 'lost.txt').expect(503)).body).toEqual(
        fail('SERVICE_UNAVAILABLE'),
      );
      await t.http.get(mine).set(u.auth).expect(503);
      expect(await rowsOf(u)).toHaveLength(1);
    } finally {
      await s3.start(port);
    }
    expect((await t.http.get(mine).set(u.auth).expect(200)).text).toBe('kept');
    await upload(u, Buffer.from('again'), 'again.txt').expect(200);
  });

  it('deletes the record even when the store cannot delete the object (logged)', async () => {
    const admin = await newUser(t, { role: 'ADMIN' });
    const u = await newUser(t);
    const a = (await upload(u, Buffer.from('a'), 'a.txt').expect(200)).body.data.filename;
    const b = (await upload(u, Buffer.from('b'), 'b.txt').expect(200)).body.data.filename;
    s3.fault = { status: 500, operations: ['DeleteObject'] };
    await t.http.delete(`/api/upload/${a}`).set(u.auth).expect(200);
    await t.http.delete(`/api/users/${u.user.id}`).set(admin.auth).expect(200);
    expect(await rowsOf(u)).toEqual([]);
    expect(s3.keys()).toEqual(expect.arrayContaining([PREFIX + a, PREFIX + b]));
    await t.http.get(`/uploads/${a}`).expect(404);
  });

  it('aborts the multipart upload when the client goes away mid-file', async () => {
    const u = await newUser(t);
    const { type, body } = multipart([
      { name: 'file', filename: 'gone.txt', type: 'text/plain', body: text(2 * S3_PART_BYTES) },
    ]);
    const req = httpRequest({
      host: '127.0.0.1',
      port: await portOf(t.app),
      path: '/api/upload',
      method: 'POST',
      headers: { ...u.auth, 'Content-Type': type, 'Content-Length': body.length + 100 },
    });
    req.on('error', () => undefined);
    // Each wait is on the store handling the request, bounded by this test's timeout alone.
    const firstPart = s3.handled('UploadPart');
    req.write(body.subarray(0, body.length - 100));
    await firstPart;
    const aborted = s3.handled('AbortMultipartUpload');
    req.destroy();
    await aborted;
    expect(count('AbortMultipartUpload')).toBe(1);
    expect(s3.openMultipartUploads()).toBe(0);
    expect(count('CompleteMultipartUpload')).toBe(0);
    expect(s3.keys().filter((k) => k.endsWith('-gone.txt'))).toEqual([]);
    expect(await rowsOf(u)).toEqual([]);
  });
});

describe('the local S3 server', () => {
  it('takes the aws-chunked body the SDK sends for a stream, checking its CRC32 trailer', async () => {
    const s3 = await new S3TestServer().start();
    const client = createS3Client({
      bucket: s3.buckets[0],
      region: 'us-east-1',
      endpoint: s3.url,
      forcePathStyle: true,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      keyPrefix: '',
    });
    try {
      const body = text(200_000);
      const Body = Readable.from([body.subarray(0, 70_000), body.subarray(70_000)]);
      const put = { Bucket: s3.buckets[0], Key: 'a/b c.txt', Body, ContentLength: body.length };
      await client.send(new PutObjectCommand(put));
      expect(s3.requests[0].headers).toMatchObject({
        'content-encoding': 'aws-chunked',
        'x-amz-trailer': 'x-amz-checksum-crc32',
      });
      expect(s3.read('a/b c.txt').equals(body)).toBe(true);
    } finally {
      client.destroy();
      await s3.destroy();
    }
  });
});

describe('STORAGE_DRIVER=s3 configuration at boot', () => {
  const boot = async (env: Record<string, string | undefined>) => {
    const app = spawnApp({ DATABASE_URL: undefined, STORAGE_DRIVER: 's3', ...env });
    return { code: await app.exited, output: app.output() };
  };

  it('refuses to start without S3_BUCKET, naming it', async () => {
    const { code, output } = await boot({ S3_BUCKET: undefined });
    expect(code).toBe(1);
    expect(output).toMatch(/S3_BUCKET is required when STORAGE_DRIVER=s3/);
  });

  it('refuses half a key pair and a bad endpoint without printing the secret', async () => {
    const secret = 'wJalrXUtnFEMI-never-printed';
    const { code, output } = await boot({
      S3_BUCKET: 'my-bucket',
      S3_SECRET_ACCESS_KEY: secret,
      S3_ACCESS_KEY_ID: undefined,
      S3_ENDPOINT: 'not a url',
    });
    expect(code).toBe(1);
    expect(output).toMatch(/S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together/);
    expect(output).toMatch(/S3_ENDPOINT/);
    expect(output).not.toContain(secret);
  });
});
