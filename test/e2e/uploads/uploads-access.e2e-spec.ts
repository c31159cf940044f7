import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UploadLinks } from '../../../src/uploads/upload-links';
import { newChat, newTeam, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { SetClock } from '../../support/two-factor';
import { startUploadDriver, type UploadDriver } from '../../support/upload-drivers';
import { PNG_BYTES } from '../../support/uploads';

/**
 * Who may download `/uploads/{filename}` (owner, chat readers, signed links),
 * the 404 everyone else gets and the rate limit of those misses. Every request comes from a
 * forwarded client IP of its own test (TRUST_PROXY), so misses of one test never count in
 * another's window. The signed link on S3 is in uploads.e2e-spec.ts and uploads-s3.e2e-spec.ts.
 */

const TTL = 3600;
const MISS_LIMIT = 20;
const NOT_FOUND = { error: expect.any(String), code: 'NOT_FOUND' };

describe('Who may download an upload', () => {
  let t: TestApp;
  let d: UploadDriver;
  const clock = new SetClock();
  let ipCount = 0;
  let ip: string;

  beforeAll(async () => {
    d = await startUploadDriver('disk');
    t = await createTestApp({ ...d.env, TRUST_PROXY: 'true' }, { clock });
  });
  afterAll(async () => {
    await t?.close();
    await d?.close();
  });
  beforeEach(() => {
    ip = `198.51.100.${++ipCount}`;
    clock.startAt(ipCount);
  });

  const get = (path: string, who?: TestUser | { Cookie: string }) => {
    const req = t.http.get(path).set('X-Forwarded-For', ip);
    return who ? req.set('auth' in who ? who.auth : who) : req;
  };
  const upload = async (u: TestUser, name = 'cat.png', body: Buffer = PNG_BYTES) => {
    const res = await t.http.post('/api/upload').set(u.auth).attach('file', body, name).expect(200);
    const data = res.body.data as { url: string; filename: string; expiresAt: string };
    return { ...data, path: `/uploads/${encodeURIComponent(data.filename)}` };
  };
  const query = (url: string) => new URL(url, 'http://x').searchParams;

  it('serves the owner by bearer token and by cookie; a stranger or no session gets the unknown-name 404', async () => {
    const [owner, stranger] = [await newUser(t), await newUser(t)];
    const { path } = await upload(owner);
    const mine = await get(path, owner).expect(200);
    expect(Buffer.compare(mine.body as Buffer, PNG_BYTES)).toBe(0);
    await get(path, { Cookie: `session_token=${owner.token}` }).expect(200);

    const unknown = await get('/uploads/1747700000000-nothing.png').expect(404);
    for (const res of [await get(path, stranger), await get(path)]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
      expect(res.body).toEqual(unknown.body);
    }
    // An invalid token on this public route is no session, not a 401.
    await get(path, { Cookie: 'session_token=forged' }).expect(404);
  });

  it('answers foreign, unknown, malformed, deleted and lost names with one 404 body naming nothing', async () => {
    const [owner, stranger] = [await newUser(t), await newUser(t)];
    const { path, filename } = await upload(owner, 'private-plan.png');
    const [{ id }] = await t.db.query(`SELECT id FROM uploads WHERE filename = $1`, [filename]);
    const gone = await upload(owner, 'gone.png');
    await t.http.delete(`/api/upload/${gone.filename}`).set(owner.auth).expect(200);
    const lost = await upload(owner, 'lost.png');
    rmSync(join(d.env.UPLOAD_DIR, lost.filename));

    const unknown = await get('/uploads/1747700000000-0123456789abcdef0123456789abcdef-x.png');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(NOT_FOUND);
    const answers = [
      await get(path, stranger),
      await get(path),
      await get(`/uploads/${encodeURIComponent('../' + filename)}`, stranger),
      await get(`/uploads/not-a-stored-name.png`, stranger),
      await get(gone.path, owner),
      await get(lost.path, owner),
    ];
    for (const res of answers) expect([res.status, res.body]).toEqual([404, unknown.body]);
    for (const res of [unknown, ...answers]) {
      expect(res.text).not.toContain(id);
      expect(res.text).not.toContain('private-plan');
      expect(res.text).not.toContain('1747700000000');
    }
    // Deleting answers the same for another user's name and an unknown one.
    const del = (name: string) => t.http.delete(`/api/upload/${name}`).set(stranger.auth);
    const [theirs, none] = [await del(filename), await del('1747700000000-x.png')];
    expect([theirs.status, theirs.body]).toEqual([404, none.body]);
    expect(theirs.text).not.toContain('private-plan');
  });

  it('serves the signed url of the upload answer without a session until it expires, then 404', async () => {
    const owner = await newUser(t);
    const started = clock.now().getTime();
    const { url, path, expiresAt } = await upload(owner);
    expect(new Date(expiresAt).getTime()).toBe(Math.floor(started / 1000) * 1000 + TTL * 1000);
    expect(Number(query(url).get('exp'))).toBe(Math.floor(started / 1000) + TTL);

    await get(url).expect(200);
    clock.at = new Date(new Date(expiresAt).getTime() - 1000);
    await get(url).expect(200);
    clock.at = new Date(expiresAt);
    expect((await get(url).expect(404)).body).toEqual(NOT_FOUND);
    // The owner still reads it, and a new link works again.
    await get(path, owner).expect(200);
    const fresh = t.app.get(UploadLinks).signedUrl(path.slice('/uploads/'.length));
    expect(fresh).not.toBe(url);
    await get(fresh).expect(200);
  });

  it('answers 404 to a tampered signature or expiry, and to a link of another file', async () => {
    const owner = await newUser(t);
    const { url, path } = await upload(owner);
    const other = await upload(owner, 'other.png');
    const [exp, sig] = [query(url).get('exp')!, query(url).get('sig')!];
    const flipped = sig.slice(0, 5) + (sig[5] === 'A' ? 'B' : 'A') + sig.slice(6);
    const tampered = [
      `${path}?exp=${exp}&sig=${flipped}`,
      `${path}?exp=${Number(exp) + 3600}&sig=${sig}`,
      `${path}?exp=${exp}`,
      `${path}?sig=${sig}`,
      `${path}?exp=${exp}&sig=${sig}&sig=${sig}`,
      `${path}?exp=${exp}&sig=${Buffer.from(sig, 'base64url').toString('hex')}`,
      `${path}?${query(other.url).toString()}`,
    ];
    for (const link of tampered) expect([link, (await get(link)).status]).toEqual([link, 404]);
    await get(url).expect(200);
  });

  it('serves an image attached to a chat shared with a team to its members, until they leave', async () => {
    const [owner, member, outsider] = [await newUser(t), await newUser(t), await newUser(t)];
    const team = await newTeam(t, owner, { members: [[member, 'MEMBER']] });
    const { path, filename } = await upload(owner, 'diagram.png');
    await get(path, member).expect(404); // not attached anywhere yet

    // The AI path that saves attachments is not here yet: the rows it would write.
    const chat = await newChat(t, owner, { teamId: team.id });
    const [message] = await t.db.query(
      `INSERT INTO messages ("chatId", "userId", role, content) VALUES ($1, $2, 'USER', 'see this')
       RETURNING id`,
      [chat.id, owner.user.id],
    );
    const [{ id: uploadId }] = await t.db.query(`SELECT id FROM uploads WHERE filename = $1`, [
      filename,
    ]);
    await t.db.query(
      `INSERT INTO message_attachments ("messageId", position, "uploadId") VALUES ($1, 0, $2)`,
      [message.id, uploadId],
    );

    await get(path, member).expect(200);
    await get(path, { Cookie: `session_token=${member.token}` }).expect(200);
    await get(path, outsider).expect(404);
    await get(path).expect(404);

    await t.http
      .delete(`/api/teams/${team.id}/members/${member.user.id}`)
      .set(member.auth)
      .expect(200);
    expect((await get(path, member).expect(404)).body).toEqual(NOT_FOUND);
    await get(path, owner).expect(200);
  });

  it('keeps names stored without the random part readable by their owner', async () => {
    const [owner, stranger] = [await newUser(t), await newUser(t)];
    const filename = '1700000000000-old-report.txt';
    writeFileSync(join(d.env.UPLOAD_DIR, filename), 'from before');
    await t.db.query(
      `INSERT INTO uploads ("userId", filename, "originalName", size, "contentType")
       VALUES ($1, $2, 'old report.txt', 11, 'text/plain')`,
      [owner.user.id, filename],
    );
    expect((await get(`/uploads/${filename}`, owner).expect(200)).text).toBe('from before');
    await get(`/uploads/${filename}`, stranger).expect(404);
    await get(t.app.get(UploadLinks).signedUrl(filename)).expect(200);
  });

  it(`answers 429 after ${MISS_LIMIT} misses a minute from one IP; hits are not counted nor refused`, async () => {
    const [owner, stranger] = [await newUser(t), await newUser(t)];
    const { path } = await upload(owner);
    for (let i = 0; i < MISS_LIMIT + 5; i++) await get(path, owner).expect(200);

    for (let i = 0; i < MISS_LIMIT; i++) await get(path, stranger).expect(404);
    const limited = await get('/uploads/1747700000000-guess.png').expect(429);
    expect(limited.body).toEqual({ error: expect.any(String), code: 'RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    await get(path, stranger).expect(429);

    // The owner's downloads from the same IP go on; another IP's misses have their own count.
    await get(path, owner).expect(200);
    ip = '198.51.100.250';
    await get(path, stranger).expect(404);
  });

  it('documents the signed-link parameters and the 404 and 429 answers', async () => {
    const doc = (await t.http.get('/api/docs-json').expect(200)).body;
    const op = doc.paths['/uploads/{filename}'].get;
    expect(op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['path:filename', 'query:exp', 'query:sig']),
    );
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '404', '429']));
    const answer = doc.components.schemas.UploadDto;
    expect(answer.required).toEqual(expect.arrayContaining(['url', 'filename', 'expiresAt']));
  });
});
