import { newUser, PASSWORD, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { bearer, sessionCookieOf } from '../../support/two-factor';
import { waitFor } from '../../support/wait';

/**
 * Sessions that end: every sign-in is a `sessions` row named by the token's `sid`; the owner
 * lists them and ends one, all others, or (signing out) the current one, and an ended session's
 * token is refused at once, by Bearer and by cookie.
 */
const UNAUTHORIZED = { error: expect.any(String), code: 'UNAUTHORIZED' };
const sidOf = (token: string): string =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid;

describe('sessions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ TRUST_PROXY: 'true' });
  });
  afterAll(() => t.close());

  /** A password sign-in from `agent` at `ip`; its token. */
  const signIn = async (u: TestUser, agent: string, ip = '198.51.100.7'): Promise<string> => {
    const res = await t.http
      .post('/api/auth/login')
      .set('User-Agent', agent)
      .set('X-Forwarded-For', ip)
      .send({ email: u.user.email, password: PASSWORD })
      .expect(200);
    return res.body.accessToken;
  };
  const list = async (token: string) =>
    (await t.http.get('/api/auth/sessions').set(bearer(token)).expect(200)).body.sessions as {
      id: string;
      current: boolean;
      active: boolean;
      endReason: string | null;
      revokedAt: string | null;
      userAgent: string | null;
      ip: string | null;
    }[];
  const works = async (token: string) => {
    const viaBearer = await t.http.get('/api/protected').set(bearer(token));
    const viaCookie = await t.http.get('/api/protected').set('Cookie', `session_token=${token}`);
    expect(viaCookie.status).toBe(viaBearer.status);
    if (viaBearer.status === 401) expect(viaBearer.body).toEqual(UNAUTHORIZED);
    return viaBearer.status === 200;
  };

  it('lists my sessions, newest first, the current one marked, with agent and address', async () => {
    const u = await newUser(t);
    const laptop = await signIn(u, 'Laptop/1.0', '203.0.113.10');
    const phone = await signIn(u, 'Phone/2.0', '203.0.113.20');
    const sessions = await list(phone);
    expect(sessions.map((s) => s.id)).toEqual([sidOf(phone), sidOf(laptop), sidOf(u.token)]);
    expect(sessions[0]).toEqual({
      id: sidOf(phone),
      current: true,
      active: true,
      endReason: null,
      createdAt: expect.any(String),
      lastSeenAt: expect.any(String),
      expiresAt: expect.any(String),
      revokedAt: null,
      userAgent: 'Phone/2.0',
      ip: '203.0.113.20',
    });
    expect(sessions[1]).toMatchObject({ current: false, active: true, userAgent: 'Laptop/1.0' });
    expect(sessions[1].ip).toBe('203.0.113.10');
    // Another user's sessions are not mine.
    const other = await newUser(t);
    expect((await list(other.token)).map((s) => s.id)).toEqual([sidOf(other.token)]);
  });

  it('ends one session: its token is refused at once (Bearer and cookie), the others work', async () => {
    const u = await newUser(t);
    const laptop = await signIn(u, 'Laptop/1.0');
    expect(await works(laptop)).toBe(true);
    const res = await t.http
      .delete(`/api/auth/sessions/${sidOf(laptop)}`)
      .set(u.auth)
      .expect(200);
    expect(res.body).toEqual({ ended: 1 });
    expect(await works(laptop)).toBe(false);
    expect(await works(u.token)).toBe(true);
    const ended = (await list(u.token)).find((s) => s.id === sidOf(laptop))!;
    expect(ended).toMatchObject({ active: false, endReason: 'revoked' });
    expect(Date.parse(ended.revokedAt!)).not.toBeNaN();
    // Again: nothing more to end.
    await t.http
      .delete(`/api/auth/sessions/${sidOf(laptop)}`)
      .set(u.auth)
      .expect(200, { ended: 0 });
  });

  it("answers 404 for someone else's session or an unknown id, and ends nothing", async () => {
    const u = await newUser(t);
    const other = await newUser(t);
    for (const id of [sidOf(other.token), '00000000-0000-4000-8000-000000000000']) {
      const res = await t.http.delete(`/api/auth/sessions/${id}`).set(u.auth).expect(404);
      expect(res.body).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
    }
    expect(await works(other.token)).toBe(true);
    const bad = await t.http.delete('/api/auth/sessions/not-a-uuid').set(u.auth).expect(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
  });

  it('ends all sessions but the current one', async () => {
    const u = await newUser(t);
    const a = await signIn(u, 'A/1');
    const b = await signIn(u, 'B/1');
    const res = await t.http.delete('/api/auth/sessions').set(bearer(b)).expect(200);
    expect(res.body).toEqual({ ended: 2 });
    expect(await works(a)).toBe(false);
    expect(await works(u.token)).toBe(false);
    expect(await works(b)).toBe(true);
    const sessions = await list(b);
    expect(sessions.map((s) => [s.current, s.active])).toEqual([
      [true, true],
      [false, false],
      [false, false],
    ]);
    await t.http.delete('/api/auth/sessions').set(bearer(b)).expect(200, { ended: 0 });
  });

  it('sign-out ends the session on the server: Bearer and cookie are refused afterwards', async () => {
    const u = await newUser(t);
    for (const how of ['bearer', 'cookie'] as const) {
      const token = await signIn(u, `Browser/${how}`);
      expect(await works(token)).toBe(true);
      const auth = how === 'bearer' ? bearer(token) : { Cookie: `session_token=${token}` };
      const out = await t.http.post('/api/auth/signout').set(auth).expect(302);
      expect(out.headers.location).toBe('/');
      expect(sessionCookieOf(out)).toBe('session_token=');
      expect(await works(token)).toBe(false);
      expect((await list(u.token)).find((s) => s.id === sidOf(token))).toMatchObject({
        active: false,
        endReason: 'revoked',
      });
    }
    // Signing out again, or without a session, still clears the cookie.
    await t.http.post('/api/auth/signout').expect(302);
  });

  it('a token version bump (password change) shows the earlier sessions as ended', async () => {
    const u = await newUser(t);
    const other = await signIn(u, 'Other/1');
    const res = await t.http
      .post('/api/auth/password')
      .set(u.auth)
      .send({ currentPassword: PASSWORD, newPassword: 'a brand new passphrase' })
      .expect(200);
    const fresh: string = res.body.accessToken;
    expect(await works(other)).toBe(false);
    const sessions = await list(fresh);
    expect(sessions[0]).toMatchObject({ id: sidOf(fresh), current: true, active: true });
    for (const sid of [sidOf(other), sidOf(u.token)])
      expect(sessions.find((s) => s.id === sid)).toMatchObject({
        active: false,
        endReason: 'credentials_changed',
        revokedAt: null,
      });
  });

  it('records the last use at most once a minute', async () => {
    const u = await newUser(t);
    const token = await signIn(u, 'Idle/1');
    const sid = sidOf(token);
    await t.db.query(
      `UPDATE sessions SET "lastSeenAt" = now() - interval '5 minutes' WHERE id = $1`,
      [sid],
    );
    const seen = async () =>
      (await t.db.query('SELECT "lastSeenAt" FROM sessions WHERE id = $1', [sid]))[0]
        .lastSeenAt as Date;
    const before = await seen();
    expect(await works(token)).toBe(true);
    expect(await waitFor(async () => (await seen()) > before)).toBe(true);
  });

  it('a process that lost its listening connection reads the session again: a silent revocation is refused', async () => {
    const listeners = async (): Promise<number[]> =>
      (
        await t.db.query(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN session_changed%'`,
        )
      ).map((r: { pid: number }) => r.pid);
    expect(await waitFor(async () => (await listeners()).length === 1)).toBe(true);
    const u = await newUser(t);
    const token = await signIn(u, 'Cached/1');
    expect(await works(token)).toBe(true); // now served from memory
    const [pid] = await listeners();
    await t.db.query('ALTER TABLE sessions DISABLE TRIGGER sessions_session_changed');
    try {
      // Revoked with no notification while the listener is down: only a fresh read sees it.
      await t.db.query('SELECT pg_terminate_backend($1)', [pid]);
      await t.db.query(`UPDATE sessions SET "revokedAt" = now() WHERE id = $1`, [sidOf(token)]);
      expect(await waitFor(async () => !(await works(token)))).toBe(true);
    } finally {
      await t.db.query('ALTER TABLE sessions ENABLE TRIGGER sessions_session_changed');
    }
    // Listening again, it still refuses (the cache started empty).
    expect(await waitFor(async () => (await listeners()).some((p) => p !== pid))).toBe(true);
    expect(await works(token)).toBe(false);
    expect(await works(u.token)).toBe(true);
  });

  it('refuses an API key on every sessions route', async () => {
    const u = await newUser(t);
    const key = await t.http
      .post('/api/keys')
      .set(u.auth)
      .send({ name: 'k', scopes: ['ai', 'chats:read'] })
      .expect(201);
    const auth = bearer(key.body.key);
    for (const req of [
      t.http.get('/api/auth/sessions').set(auth),
      t.http.delete('/api/auth/sessions').set(auth),
      t.http.delete(`/api/auth/sessions/${sidOf(u.token)}`).set(auth),
    ]) {
      const res = await req.expect(403);
      expect(res.body.code).toBe('INSUFFICIENT_SCOPE');
    }
    expect(await works(u.token)).toBe(true);
  });
});
