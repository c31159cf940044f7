import { newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { startUploadDriver, UPLOAD_DRIVERS, type UploadDriver } from '../../support/upload-drivers';

/**
 * Per-user upload limits: UPLOAD_QUOTA_BYTES of stored uploads (413 UPLOAD_QUOTA_EXCEEDED, the
 * bytes already streamed to storage removed) and UPLOAD_RATE_PER_HOUR attempts (429). On every
 * storage driver, since the refused file may already sit in the bucket.
 */

const QUOTA = 1000;
const RATE = 8;

describe.each(UPLOAD_DRIVERS)('Upload quota and rate on %s storage', (driver) => {
  let t: TestApp;
  let d: UploadDriver;

  beforeAll(async () => {
    d = await startUploadDriver(driver);
    t = await createTestApp({
      ...d.env,
      UPLOAD_QUOTA_BYTES: String(QUOTA),
      UPLOAD_RATE_PER_HOUR: String(RATE),
    });
  });
  afterAll(async () => {
    await t?.close();
    await d?.close();
  });

  /** Uploads `bytes` bytes of text named `name`. */
  const upload = (u: TestUser, name: string, bytes: number) =>
    t.http.post('/api/upload').set(u.auth).attach('file', Buffer.alloc(bytes, 'a'), name);
  const usedBy = async (u: TestUser): Promise<number> =>
    Number(
      (
        await t.db.query(`SELECT COALESCE(sum(size), 0) AS used FROM uploads WHERE "userId" = $1`, [
          u.user.id,
        ])
      )[0].used,
    );
  const exceeded = (usedBytes: number) => ({
    success: false,
    error: expect.any(String),
    code: 'UPLOAD_QUOTA_EXCEEDED',
    quotaBytes: QUOTA,
    usedBytes,
  });

  it('refuses the upload that would pass the quota, keeps nothing of it, and frees room on delete', async () => {
    const [u, other] = [await newUser(t), await newUser(t)];
    await upload(u, 'one.txt', 400).expect(200);
    const { filename } = (await upload(u, 'two.txt', 400).expect(200)).body.data;
    const before = d.names();

    // Streamed to storage, then refused when recorded: the stored bytes are removed.
    const over = await upload(u, 'three.txt', 201).expect(413);
    expect(over.body).toEqual(exceeded(800));
    expect(over.body.error).not.toContain('three');
    expect(d.cleanedUp('-three.txt')).toBe(true);
    expect(d.names()).toEqual(before);

    // Exactly up to the quota fits; once full, the next is refused before a byte is written.
    await upload(u, 'fill.txt', 200).expect(200);
    expect(await usedBy(u)).toBe(QUOTA);
    expect((await upload(u, 'tiny.txt', 1).expect(413)).body).toEqual(exceeded(QUOTA));
    expect(d.started('-tiny.txt')).toBe(false);
    // The quota is per user.
    await upload(other, 'theirs.txt', 900).expect(200);

    // Deleting an upload frees its bytes at once.
    await t.http.delete(`/api/upload/${filename}`).set(u.auth).expect(200);
    await upload(u, 'again.txt', 400).expect(200);
    expect(await usedBy(u)).toBe(QUOTA);
  });

  it('refuses a declared body that cannot fit before reading it', async () => {
    const u = await newUser(t);
    await upload(u, 'some.txt', 100).expect(200);
    // 70 000 bytes declare far more than the 900 left, even less the multipart framing.
    const res = await upload(u, 'big.txt', 70_000).expect(413);
    expect(res.body).toEqual(exceeded(100));
    expect(d.started('-big.txt')).toBe(false);
    expect(await usedBy(u)).toBe(100);
  });

  it('lets only one of two parallel uploads through when both would not fit', async () => {
    const u = await newUser(t);
    const answers = await Promise.all([upload(u, 'left.txt', 600), upload(u, 'right.txt', 600)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 413]);
    expect(await usedBy(u)).toBe(600);
    const kept = answers.find((r) => r.status === 200)!.body.data.filename as string;
    const refused = kept.endsWith('-left.txt') ? '-right.txt' : '-left.txt';
    expect(d.names().filter((n) => n.endsWith(refused))).toEqual([]);
  });

  it(`answers 429 after ${RATE} upload attempts in an hour, storing nothing; other users go on`, async () => {
    const [u, other] = [await newUser(t), await newUser(t)];
    // A refused attempt counts too.
    await t.http.post('/api/upload').set(u.auth).send({ file: 'x' }).expect(400);
    for (let i = 1; i < RATE; i++) await upload(u, `n${i}.txt`, 10).expect(200);
    const limited = await upload(u, 'late.txt', 10).expect(429);
    expect(limited.body).toEqual({
      success: false,
      error: expect.any(String),
      code: 'RATE_LIMITED',
    });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(d.started('-late.txt')).toBe(false);
    expect(await usedBy(u)).toBe(10 * (RATE - 1));
    await upload(other, 'fine.txt', 10).expect(200);
  });

  it('documents the quota and rate answers of the upload route', async () => {
    const doc = (await t.http.get('/api/docs-json').expect(200)).body;
    const op = doc.paths['/api/upload'].post;
    expect(op.responses['413'].description).toContain('UPLOAD_QUOTA_EXCEEDED');
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['413', '429']));
  });
});
