import { Clock } from '../../../src/common/clock/clock';
import { newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import {
  SECRET,
  startUploadDriver,
  UPLOAD_DRIVERS,
  type UploadDriver,
} from '../../support/upload-drivers';
import { multipart, type Part, PNG_BYTES, rawGet } from '../../support/uploads';

/** A clock tests can stop, so two uploads share one millisecond. */
class StoppableClock extends Clock {
  at?: Date;
  now(): Date {
    return this.at ?? new Date();
  }
}

const LIMIT = 64 * 1024;
/** A stored name: `<timestamp>-<32 hex digits>-<sanitised name>`. */
const named = (name: string) =>
  new RegExp(`^\\d+-[0-9a-f]{32}-${name.replace(/[.()]/g, '\\$&')}$`, 'u');
const fail = (code: string) => ({ success: false, error: expect.any(String), code });

// The same scenarios on every storage driver (STORAGE_DRIVER=disk and s3 against a local S3).
describe.each(UPLOAD_DRIVERS)('Uploads on %s storage: upload, download, delete', (driver) => {
  let t: TestApp;
  let d: UploadDriver;
  const clock = new StoppableClock();

  beforeAll(async () => {
    d = await startUploadDriver(driver);
    // The traversal cases below are misses from one IP; the miss limit has its own suite.
    t = await createTestApp(
      { ...d.env, UPLOAD_MAX_BYTES: String(LIMIT), UPLOAD_MISS_LIMIT_PER_MINUTE: '1000' },
      { clock },
    );
  });
  afterAll(async () => {
    await t?.close();
    await d?.close();
  });
  afterEach(() => (clock.at = undefined));

  const post = (u: TestUser | null, parts: Part[]) => {
    const { type, body } = multipart(parts);
    const req = t.http.post('/api/upload').set('Content-Type', type);
    return (u ? req.set(u.auth) : req).send(body);
  };
  const file = (filename: string, body: Buffer | string, type?: string): Part => ({
    name: 'file',
    filename,
    body,
    type,
  });
  const rowsOf = (u: TestUser) =>
    t.db.query(`SELECT * FROM uploads WHERE "userId" = $1 ORDER BY "createdAt"`, [u.user.id]);

  it('stores an image, records it and serves it inline with nosniff at its signed url', async () => {
    const u = await newUser(t);
    const before = Date.now();
    const res = await t.http.post('/api/upload').set(u.auth).attach('file', PNG_BYTES, 'cat.png');
    expect(res.status).toBe(200);
    const { filename } = res.body.data as { filename: string };
    expect(res.body).toEqual({
      success: true,
      data: {
        id: expect.any(String),
        url: expect.stringMatching(/^\/uploads\/[^?]+\?exp=\d+&sig=[\w-]{43}$/),
        filename: expect.stringMatching(named('cat.png')),
        expiresAt: expect.any(String),
      },
    });
    expect(res.body.data.url.startsWith(`/uploads/${filename}?`)).toBe(true);
    const [, at] = /^(\d+)-/.exec(filename)!;
    expect(Number(at)).toBeGreaterThanOrEqual(before);
    expect(Number(at)).toBeLessThanOrEqual(Date.now());
    expect(d.read(filename).equals(PNG_BYTES)).toBe(true);
    expect(await rowsOf(u)).toEqual([
      expect.objectContaining({
        filename,
        originalName: 'cat.png',
        size: String(PNG_BYTES.length),
        contentType: 'image/png',
      }),
    ]);

    // The signed url serves the file without a session; the bare path only to the owner.
    await t.http.get(`/uploads/${filename}`).expect(404);
    const got = await t.http.get(res.body.data.url).buffer(true).expect(200);
    expect(got.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': String(PNG_BYTES.length),
      'x-content-type-options': 'nosniff',
      'content-disposition': expect.stringMatching(/^inline; filename="cat\.png"/),
      'cache-control': 'private, max-age=300',
    });
    expect(got.headers['content-security-policy']).toContain('sandbox');
    expect(Buffer.compare(got.body as Buffer, PNG_BYTES)).toBe(0);
  });

  it('keeps Chinese letters in the name and serves it at its URL', async () => {
    const u = await newUser(t);
    const res = await post(u, [file('照片 1.png', PNG_BYTES, 'image/png')]).expect(200);
    expect(res.body.data.filename).toMatch(named('照片_1.png'));
    const got = await t.http.get(res.body.data.url).expect(200);
    expect(got.headers['content-disposition']).toContain(
      `filename*=UTF-8''${encodeURIComponent('照片 1.png')}`,
    );
  });

  it('serves an uploaded HTML file as a plain-text attachment', async () => {
    const u = await newUser(t);
    const html = '<html><body><script>alert(document.cookie)</script></body></html>';
    const res = await t.http
      .post('/api/upload')
      .set(u.auth)
      .attach('file', Buffer.from(html), 'page.html')
      .expect(200);
    expect(res.body.data.filename).toMatch(named('page.html'));
    const got = await t.http.get(res.body.data.url).expect(200);
    expect(got.headers).toMatchObject({
      'content-type': 'text/plain; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'content-disposition': expect.stringMatching(/^attachment; filename="page\.html"/),
    });
    expect(got.text).toBe(html);
  });

  it.each([
    ['../../secret.txt', named('secret.txt')],
    ['..\\..\\secret.txt', named('secret.txt')],
    ['/etc/passwd', named('passwd')],
    ['.env', named('env')],
  ])('stores a file sent as %j inside the upload area only', async (name, want) => {
    const u = await newUser(t);
    const res = await post(u, [file(name, 'overwritten?', 'text/plain')]).expect(200);
    expect(res.body.data.filename).toMatch(want);
    expect(d.names()).toContain(res.body.data.filename);
    expect(d.outside()).toEqual(['secret.txt']);
    expect(d.secret()).toBe(SECRET);
  });

  it.each([
    '/uploads/../secret.txt',
    '/uploads/..%2fsecret.txt',
    '/uploads/%2e%2e%2fsecret.txt',
    '/uploads/%2E%2E%2Fsecret.txt',
    '/uploads/%2e%2e/secret.txt',
    '/uploads/..%5csecret.txt',
    '/uploads/%252e%252e%252fsecret.txt',
    '/uploads/..',
    '/uploads/%2e%2e',
    '/uploads/files%2f..%2f..%2fsecret.txt',
    '/uploads/1-..%2f..%2fsecret.txt',
    '/uploads/secret.txt%00.png',
  ])('answers 404 for the traversal %s', async (path) => {
    const res = await rawGet(t.app, path);
    expect(res.status).toBe(404);
    expect(res.body).not.toContain(SECRET);
  });

  it('refuses a file past UPLOAD_MAX_BYTES while streaming: 413, partial file removed', async () => {
    const u = await newUser(t);
    const before = d.names();
    // Just over the limit: the declared length passes the early check, the stream does not.
    const over = Buffer.alloc(LIMIT + 1, 'a');
    const res = await post(u, [file('over.txt', over, 'text/plain')]).expect(413);
    expect(res.body).toEqual({ ...fail('PAYLOAD_TOO_LARGE'), limitBytes: LIMIT });
    expect(d.names()).toEqual(before);
    expect(await rowsOf(u)).toEqual([]);
    // Exactly the limit is accepted.
    await post(u, [file('fits.txt', Buffer.alloc(LIMIT, 'a'), 'text/plain')]).expect(200);
  });

  it('refuses a body whose declared length is far past the limit before reading it', async () => {
    const u = await newUser(t);
    const before = d.names();
    const res = await post(u, [file('big.txt', Buffer.alloc(LIMIT * 3, 'a'))]).expect(413);
    expect(res.body).toEqual({ ...fail('PAYLOAD_TOO_LARGE'), limitBytes: LIMIT });
    expect(d.names()).toEqual(before);
  });

  it.each([
    ['a .png name with text bytes', file('fake.png', 'not a png at all', 'image/png')],
    ['a .png name sent as octet-stream', file('fake.png', 'nope', 'application/octet-stream')],
    ['PNG bytes named .pdf', file('doc.pdf', PNG_BYTES, 'application/pdf')],
    ['binary bytes of no allowed type', file('x.bin', Buffer.from([0, 1, 2, 0xff]))],
    ['an SVG (script-capable)', file('x.svg', '<svg onload="alert(1)"/>', 'image/svg+xml')],
  ])('refuses %s with 415 and stores nothing', async (_name, part) => {
    const u = await newUser(t);
    const before = d.names();
    const res = await post(u, [part]).expect(415);
    expect(res.body).toEqual({
      ...fail('UNSUPPORTED_MEDIA_TYPE'),
      allowedTypes: expect.any(Array),
    });
    expect(d.names()).toEqual(before);
    expect(await rowsOf(u)).toEqual([]);
  });

  it('answers 400 when field "file" is missing', async () => {
    const u = await newUser(t);
    const empty = await t.http.post('/api/upload').set(u.auth).send({ file: 'x' }).expect(400);
    expect(empty.body).toEqual(fail('VALIDATION_FAILED'));
    const fieldOnly = await post(u, [{ name: 'note', body: 'hi' }]).expect(400);
    expect(fieldOnly.body).toEqual(fail('VALIDATION_FAILED'));
    const otherField = await post(u, [{ ...file('a.txt', 'x'), name: 'picture' }]).expect(400);
    expect(otherField.body).toEqual(fail('VALIDATION_FAILED'));
    // busboy reduces a name to its base name; `..` has none, so the part is no file.
    const dots = await post(u, [file('..', 'x', 'text/plain')]).expect(400);
    expect(dots.body).toEqual(fail('VALIDATION_FAILED'));
    expect(await rowsOf(u)).toEqual([]);
  });

  it('answers 401 without a session and writes nothing', async () => {
    const before = d.names();
    const res = await post(null, [file('a.txt', 'hello', 'text/plain')]).expect(401);
    expect(res.body).toEqual(fail('UNAUTHORIZED'));
    expect(d.names()).toEqual(before);
  });

  it('gives two uploads of one name in one millisecond distinct random names', async () => {
    const u = await newUser(t);
    clock.at = new Date('2030-01-01T00:00:00.000Z');
    const names: string[] = [];
    for (let i = 0; i < 2; i++)
      names.push((await post(u, [file('same.txt', `v${i}`)]).expect(200)).body.data.filename);
    const at = clock.at.getTime();
    for (const n of names) expect(n).toMatch(new RegExp(`^${at}-[0-9a-f]{32}-same\\.txt$`));
    expect(names[0]).not.toBe(names[1]);
    for (const [i, n] of names.entries())
      expect((await t.http.get(`/uploads/${n}`).set(u.auth).expect(200)).text).toBe(`v${i}`);
  });

  it('lets only the owner delete an upload; others get 404', async () => {
    const [owner, other] = [await newUser(t), await newUser(t)];
    const { filename } = (await post(owner, [file('mine.txt', 'mine')]).expect(200)).body.data;
    const url = `/api/upload/${encodeURIComponent(filename)}`;
    expect((await t.http.delete(url).set(other.auth).expect(404)).body).toEqual(fail('NOT_FOUND'));
    await t.http.get(`/uploads/${filename}`).set(owner.auth).expect(200);
    await t.http.delete(url).expect(401);

    expect((await t.http.delete(url).set(owner.auth).expect(200)).body).toEqual({ success: true });
    expect(d.names()).not.toContain(filename);
    expect(await rowsOf(owner)).toEqual([]);
    await t.http.get(`/uploads/${filename}`).set(owner.auth).expect(404);
    await t.http.delete(url).set(owner.auth).expect(404);
    await t.http.delete('/api/upload/..%2fsecret.txt').set(owner.auth).expect(404);
    expect(d.secret()).toBe(SECRET);
  });

  it('deleting a user removes their upload records and stored files, not others', async () => {
    const admin = await newUser(t, { role: 'ADMIN' });
    const [gone, stays] = [await newUser(t), await newUser(t)];
    const names: string[] = [];
    for (const body of ['one', 'two'])
      names.push((await post(gone, [file(`${body}.txt`, body)]).expect(200)).body.data.filename);
    const kept = (await post(stays, [file('kept.txt', 'kept')]).expect(200)).body.data.filename;

    await t.http.delete(`/api/users/${gone.user.id}`).set(admin.auth).expect(200);
    expect(await rowsOf(gone)).toEqual([]);
    for (const name of names) {
      expect(d.names()).not.toContain(name);
      await t.http.get(`/uploads/${name}`).set(gone.auth).expect(404);
    }
    expect(d.read(kept).toString()).toBe('kept');
    expect(await rowsOf(stays)).toHaveLength(1);
  });

  it('answers 404 for an unknown name', async () => {
    const res = await t.http.get('/uploads/1747700000000-nothing.png').expect(404);
    expect(res.body).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
  });
});
