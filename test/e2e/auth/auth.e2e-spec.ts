import * as jwt from 'jsonwebtoken';
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { UsersService } from '../../../src/users/users.service';
import { verifyFromMailFile } from '../../support/accounts';
import { ledgerOf, newUser, PASSWORD, type TestUser } from '../../support/factories';
import { createTestApp, TEST_AUTH_SECRET, type TestApp } from '../../support/test-app';

const email = (prefix = 'user') => `${prefix}-${randomBytes(5).toString('hex')}@example.com`;
const b64url = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
/** The `session_token` Set-Cookie line of a response, if any. */
const sessionCookie = (res: Response): string | undefined =>
  ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('session_token='));
const UNAUTHORIZED = { error: expect.any(String), code: 'UNAUTHORIZED' };
const signup = (t: TestApp, body: object) => t.http.post('/api/auth/signup').send(body);
const login = (t: TestApp, body: object) => t.http.post('/api/auth/login').send(body);
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const asCookie = (token: string) => ({ Cookie: `session_token=${token}` });
const role = (token: string) => (jwt.decode(token) as jwt.JwtPayload).role;
const countUsers = async (t: TestApp, addr: string): Promise<number> =>
  (await t.db.query('SELECT COUNT(*)::int AS n FROM users WHERE email = $1', [addr]))[0].n;

describe('Auth: sign-up, login and sessions', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe('POST /api/auth/signup', () => {
    it('creates the user (201 {user, accessToken}) unverified, normalises the email, and grants 100 credits at verification', async () => {
      const addr = email('mixed');
      const res = await signup(t, {
        email: ` ${addr.toUpperCase()}`,
        password: PASSWORD,
        name: 'A',
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ user: expect.any(Object), accessToken: expect.any(String) });
      expect(res.body.user).toMatchObject({
        email: addr,
        name: 'A',
        role: 'USER',
        credits: 0,
        emailVerified: false,
      });
      expect(res.body.user).not.toHaveProperty('password');
      expect(JSON.stringify(res.body)).not.toContain('$2b$');
      expect(await ledgerOf(t, res.body.user.id)).toEqual({ credits: 0, ledgerSum: 0, entries: 0 });
      await t.http.get('/api/protected').set(bearer(res.body.accessToken)).expect(200);
      await verifyFromMailFile(t, addr);
      const ledger = await ledgerOf(t, res.body.user.id);
      expect(ledger).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
    });

    it('stores the password as a bcrypt hash of cost 12, never in clear', async () => {
      const res = await signup(t, { email: email(), password: PASSWORD }).expect(201);
      const id = res.body.user.id;
      const [row] = await t.db.query('SELECT password FROM users WHERE id = $1', [id]);
      expect(row.password).toMatch(/^\$2b\$12\$/);
      expect(row.password).not.toContain(PASSWORD);
      expect(res.body.user.name).toBeNull();
    });

    it('answers 409 EMAIL_TAKEN for an existing email in any case, creating nothing', async () => {
      const addr = email('dup');
      await signup(t, { email: addr, password: PASSWORD }).expect(201);
      for (const again of [addr, ` ${addr.toUpperCase()}`]) {
        const res = await signup(t, { email: again, password: 'another password' }).expect(409);
        expect(res.body).toEqual({ error: expect.any(String), code: 'EMAIL_TAKEN' });
      }
      expect(await countUsers(t, addr)).toBe(1);
    });

    it.each([
      ['72 ASCII bytes', 'a'.repeat(72)],
      ['36 × "é" (72 bytes)', 'é'.repeat(36)],
      ['4 × "é" (8 bytes, 4 characters)', 'é'.repeat(4)],
    ])('accepts a password of %s, which then logs in', async (_label, password) => {
      const addr = email('pw');
      await signup(t, { email: addr, password }).expect(201);
      await login(t, { email: addr, password }).expect(200);
    });

    it.each([
      ['73 ASCII bytes', 'a'.repeat(73)],
      ['37 × "é" (74 bytes, 37 characters)', 'é'.repeat(37)],
      ['7 bytes', 'a'.repeat(7)],
      ['a non-string', 12345678],
    ])('rejects a password of %s with 400 and creates no user', async (_label, password) => {
      const addr = email('pw');
      const res = await signup(t, { email: addr, password }).expect(400);
      expect(res.body).toEqual({ error: expect.any(String), code: 'VALIDATION_FAILED' });
      expect(await countUsers(t, addr)).toBe(0);
    });

    it('rejects an invalid email with 400', async () => {
      const res = await signup(t, { email: 'not-an-email', password: PASSWORD }).expect(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    });
  });

  describe('POST /api/auth/login', () => {
    let u: TestUser;
    beforeAll(async () => {
      u = await newUser(t, { name: 'Login User' });
    });

    it('answers 200 {user, accessToken} and sets an httpOnly SameSite=Lax cookie (no Secure on http)', async () => {
      const addr = ` ${u.user.email.toUpperCase()} `;
      const res = await login(t, { email: addr, password: PASSWORD }).expect(200);
      expect(res.body).toEqual({ user: expect.any(Object), accessToken: expect.any(String) });
      expect(res.body.user).toMatchObject({ id: u.user.id, email: u.user.email, role: 'USER' });
      expect(res.body.user).not.toHaveProperty('password');
      const cookie = sessionCookie(res);
      expect(cookie).toBeDefined();
      expect(cookie!.split(';')[0]).toBe(`session_token=${res.body.accessToken}`);
      expect(cookie).toMatch(/;\s*HttpOnly/i);
      expect(cookie).toMatch(/;\s*SameSite=Lax/i);
      expect(cookie).toMatch(/;\s*Path=\/(;|$)/i);
      expect(cookie).toMatch(/;\s*Max-Age=2592000/i);
      expect(cookie).not.toMatch(/;\s*Secure/i);
    });

    it('issues an HS256 JWT with sub, role, iat and exp = iat + 2592000', async () => {
      const before = now();
      const res = await login(t, { email: u.user.email, password: PASSWORD }).expect(200);
      const token: string = res.body.accessToken;
      const decoded = jwt.decode(token, { complete: true })!;
      expect(decoded.header.alg).toBe('HS256');
      const claims = jwt.verify(token, TEST_AUTH_SECRET, {
        algorithms: ['HS256'],
      }) as jwt.JwtPayload;
      expect(claims).toMatchObject({
        sub: u.user.id,
        role: 'USER',
        sid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        iat: expect.any(Number),
      });
      expect(claims.exp! - claims.iat!).toBe(2592000);
      // Issued during the request, however long it took.
      expect(claims.iat).toBeGreaterThanOrEqual(before);
      expect(claims.iat).toBeLessThanOrEqual(now());
    });

    it('answers 401 with one identical body for every kind of failure, and sets no cookie', async () => {
      const users = t.app.get(UsersService);
      const noPassword = await users.create({ email: email('social'), name: 'S' });
      const attempts: object[] = [
        { email: email('unknown'), password: PASSWORD },
        { email: noPassword.email, password: PASSWORD },
        { email: u.user.email, password: 'wrong password!' },
        { email: u.user.email },
        { password: PASSWORD },
        { email: u.user.email, password: '' },
        {},
        // PostgreSQL text cannot hold U+0000: such an email names no user.
        { email: '\u0000', password: PASSWORD },
        { email: `${u.user.email}\u0000`, password: PASSWORD },
      ];
      const bodies: unknown[] = [];
      for (const body of attempts) {
        const res = await login(t, body).expect(401);
        expect(sessionCookie(res)).toBeUndefined();
        bodies.push(res.body);
      }
      expect(bodies[0]).toEqual({ error: expect.any(String), code: expect.any(String) });
      for (const b of bodies) expect(b).toEqual(bodies[0]);
    });
  });

  describe('session tokens on GET /api/protected', () => {
    let u: TestUser;
    // Hand-signed tokens name the factory user's session: a token without a `sid` is refused.
    const claims = () => ({
      sub: u.user.id,
      role: u.user.role,
      sid: (jwt.decode(u.token) as jwt.JwtPayload).sid,
    });
    beforeAll(async () => {
      u = await newUser(t);
    });

    it('answers 200 {message} with a Bearer token', async () => {
      const res = await t.http.get('/api/protected').set(u.auth).expect(200);
      expect(res.body).toEqual({ message: expect.any(String) });
    });

    it('answers 200 {message} with the session cookie set by login', async () => {
      const res = await login(t, { email: u.user.email, password: PASSWORD }).expect(200);
      const cookie = sessionCookie(res)!.split(';')[0];
      const prot = await t.http.get('/api/protected').set('Cookie', cookie).expect(200);
      expect(prot.body).toEqual({ message: expect.any(String) });
    });

    it('accepts a token hand-signed HS256 with the right secret (control for the cases below)', async () => {
      const token = jwt.sign(claims(), TEST_AUTH_SECRET, { algorithm: 'HS256', expiresIn: 60 });
      await t.http.get('/api/protected').set(bearer(token)).expect(200);
    });

    it('answers 401 for a hand-signed token without a session id, or naming an unknown session', async () => {
      const noSid = { sub: u.user.id, role: u.user.role };
      const unknown = { ...claims(), sid: '00000000-0000-4000-8000-000000000000' };
      for (const c of [noSid, unknown]) {
        const token = jwt.sign(c, TEST_AUTH_SECRET, { algorithm: 'HS256', expiresIn: 60 });
        const res = await t.http.get('/api/protected').set(bearer(token)).expect(401);
        expect(res.body).toEqual(UNAUTHORIZED);
      }
    });

    it("answers 401 for a hand-signed token naming another user's session", async () => {
      const other = await newUser(t);
      const sid = (jwt.decode(other.token) as jwt.JwtPayload).sid;
      const token = jwt.sign({ ...claims(), sid }, TEST_AUTH_SECRET, { expiresIn: 60 });
      await t.http.get('/api/protected').set(bearer(token)).expect(401);
    });

    it('answers 401 UNAUTHORIZED without a token', async () => {
      const res = await t.http.get('/api/protected').expect(401);
      expect(res.body).toEqual(UNAUTHORIZED);
    });

    const badTokens: [string, () => string][] = [
      [
        'an expired token',
        () => jwt.sign({ ...claims(), iat: now() - 3600, exp: now() - 60 }, TEST_AUTH_SECRET),
      ],
      [
        'a tampered payload (role changed to ADMIN, signature kept)',
        () => {
          const [h, p, s] = u.token.split('.');
          const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
          return `${h}.${b64url({ ...payload, role: 'ADMIN' })}.${s}`;
        },
      ],
      [
        'an alg "none" token',
        () => `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ ...claims(), iat: now() })}.`,
      ],
      ['a token signed with a wrong secret', () => jwt.sign(claims(), 'x'.repeat(40))],
      [
        'a token signed HS512 with the right secret',
        () => jwt.sign(claims(), TEST_AUTH_SECRET, { algorithm: 'HS512' }),
      ],
      ['a garbage token', () => 'not.a.jwt'],
    ];

    it.each(badTokens)('answers 401 UNAUTHORIZED for %s (Bearer and cookie)', async (_l, make) => {
      const token = make();
      const viaHeader = await t.http.get('/api/protected').set(bearer(token));
      expect(viaHeader.status).toBe(401);
      expect(viaHeader.body).toEqual(UNAUTHORIZED);
      const cookie = await t.http.get('/api/protected').set(asCookie(token));
      expect(cookie.status).toBe(401);
      expect(cookie.body).toEqual(UNAUTHORIZED);
    });

    it('answers 401 for a valid token of a deleted user', async () => {
      const gone = await newUser(t);
      await t.http.get('/api/protected').set(gone.auth).expect(200);
      await t.app.get(UsersService).remove(gone.user.id);
      const res = await t.http.get('/api/protected').set(gone.auth).expect(401);
      expect(res.body).toEqual(UNAUTHORIZED);
    });
  });

  describe('session, providers and sign-out', () => {
    it('GET /api/auth/session returns {user, expires} with a session (Bearer or cookie)', async () => {
      const u = await newUser(t, { name: 'Sess' });
      const { exp } = jwt.decode(u.token) as jwt.JwtPayload;
      const expected = {
        user: { id: u.user.id, email: u.user.email, name: 'Sess', role: 'USER' },
        expires: new Date(exp! * 1000).toISOString(),
      };
      for (const headers of [u.auth, asCookie(u.token)]) {
        const res = await t.http.get('/api/auth/session').set(headers).expect(200);
        expect(res.body).toEqual(expected);
      }
    });

    it('GET /api/auth/session returns {} without a session or with an invalid token', async () => {
      const forged = jwt.sign({ sub: 'x', role: 'ADMIN' }, 'y'.repeat(40));
      for (const headers of [{}, bearer('garbage'), asCookie(forged)]) {
        const res = await t.http.get('/api/auth/session').set(headers).expect(200);
        expect(res.body).toEqual({});
      }
    });

    it('GET /api/auth/providers lists only the credentials provider', async () => {
      const res = await t.http.get('/api/auth/providers').expect(200);
      expect(Object.keys(res.body)).toEqual(['credentials']);
      expect(res.body.credentials).toEqual({
        id: 'credentials',
        name: expect.any(String),
        type: 'credentials',
        signinUrl: expect.stringMatching(/^http:\/\/localhost:3000\/api\/auth\//),
        callbackUrl: 'http://localhost:3000/api/auth/callback/credentials',
      });
      expect(res.body).not.toHaveProperty('google');
      expect(res.body).not.toHaveProperty('github');
    });

    it('POST /api/auth/signout redirects 302 to / and clears the cookie', async () => {
      const u = await newUser(t);
      const res = await t.http.post('/api/auth/signout').set(asCookie(u.token)).expect(302);
      expect(res.headers.location).toBe('/');
      const cookie = sessionCookie(res);
      expect(cookie).toMatch(/^session_token=;/);
      expect(cookie).toMatch(/;\s*Path=\/(;|$)/i);
      const expires = /;\s*Expires=([^;]+)/i.exec(cookie!)?.[1];
      expect(expires).toBeDefined();
      expect(Date.parse(expires!)).toBeLessThan(Date.now());
    });
  });

  describe('roles', () => {
    it('GET /api/users: 403 FORBIDDEN for a USER, 200 for an ADMIN', async () => {
      const user = await newUser(t);
      const res = await t.http.get('/api/users').set(user.auth).expect(403);
      expect(res.body).toMatchObject({ error: expect.any(String), code: 'FORBIDDEN' });
      const admin = await newUser(t, { role: 'ADMIN' });
      const ok = await t.http.get('/api/users').set(admin.auth).expect(200);
      expect(ok.body).toMatchObject({ success: true, data: expect.any(Array) });
    });
  });
});

describe('Auth over https (APP_BASE_URL https://app.example.com)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ APP_BASE_URL: 'https://app.example.com' });
  });
  afterAll(() => t.close());

  it('marks the session cookie Secure (and still httpOnly, SameSite=Lax)', async () => {
    const u = await newUser(t);
    const res = await login(t, { email: u.user.email, password: PASSWORD }).expect(200);
    const cookie = sessionCookie(res);
    expect(cookie).toMatch(/;\s*Secure/i);
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=Lax/i);
    const out = await t.http.post('/api/auth/signout').expect(302);
    expect(sessionCookie(out)).toMatch(/;\s*Secure/i);
  });

  it('builds the provider addresses on the base URL', async () => {
    const res = await t.http.get('/api/auth/providers').expect(200);
    const { callbackUrl } = res.body.credentials;
    expect(callbackUrl).toBe('https://app.example.com/api/auth/callback/credentials');
  });
});

describe('Auth: ADMIN_EMAILS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ ADMIN_EMAILS: 'boss@example.com, Chief@Example.com' });
  });
  afterAll(() => t.close());

  it('gives role ADMIN to a sign-up with a listed email (trimmed, any case) once it is verified', async () => {
    const res = await signup(t, { email: ' Boss@Example.com ', password: PASSWORD }).expect(201);
    expect(res.body.user).toMatchObject({ email: 'boss@example.com', role: 'USER' });
    expect(role(res.body.accessToken)).toBe('USER');
    const unproven = await login(t, { email: 'boss@example.com', password: PASSWORD }).expect(200);
    expect(role(unproven.body.accessToken)).toBe('USER');

    await verifyFromMailFile(t, 'boss@example.com');
    const proven = await login(t, { email: 'boss@example.com', password: PASSWORD }).expect(200);
    expect(proven.body.user).toMatchObject({ email: 'boss@example.com', role: 'ADMIN' });
    expect(role(proven.body.accessToken)).toBe('ADMIN');
    const other = await signup(t, { email: email('plain'), password: PASSWORD }).expect(201);
    expect(other.body.user.role).toBe('USER');
  });

  it('promotes an existing verified USER with a listed email to ADMIN at login', async () => {
    const res = await signup(t, { email: 'chief@example.com', password: PASSWORD }).expect(201);
    await verifyFromMailFile(t, 'chief@example.com');
    await t.db.query(`UPDATE users SET role = 'USER' WHERE id = $1`, [res.body.user.id]);

    const res2 = await login(t, { email: 'chief@example.com', password: PASSWORD }).expect(200);
    expect(res2.body.user.role).toBe('ADMIN');
    expect(role(res2.body.accessToken)).toBe('ADMIN');
    const [row] = await t.db.query('SELECT role FROM users WHERE id = $1', [res.body.user.id]);
    expect(row.role).toBe('ADMIN');
    await t.http.get('/api/users').set(bearer(res2.body.accessToken)).expect(200);
  });
});
