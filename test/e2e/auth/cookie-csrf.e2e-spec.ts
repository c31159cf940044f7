import { newUser, PASSWORD, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { sessionCookieOf } from '../../support/two-factor';

/**
 * Cross-site request forgery: a write carried by the session cookie from a foreign origin is
 * refused with 403 and changes nothing (on a public route the cookie is read as no session); the
 * service's own origin, CORS_ORIGINS, Bearer tokens and reads are unaffected.
 */
/** The error answer (chats answer in envelope B, which adds `success: false`). */
const FORBIDDEN = expect.objectContaining({ error: expect.any(String), code: 'FORBIDDEN' });

describe('session cookie: cross-site writes', () => {
  let t: TestApp;
  let u: TestUser;
  let cookie: string;
  const chatCount = async () =>
    Number(
      (await t.db.query(`SELECT count(*) AS n FROM chats WHERE "userId" = $1`, [u.user.id]))[0].n,
    );

  beforeAll(async () => {
    t = await createTestApp({
      APP_BASE_URL: 'https://console.example',
      CORS_ORIGINS: 'https://partner.example',
    });
    u = await newUser(t);
    const login = await t.http
      .post('/api/auth/login')
      .send({ email: u.user.email, password: PASSWORD })
      .expect(200);
    cookie = sessionCookieOf(login)!;
    expect(String(login.headers['set-cookie'])).toMatch(/SameSite=Lax/i);
  });
  afterAll(() => t.close());

  it('refuses a cross-site form post with the cookie (403), creating nothing', async () => {
    const before = await chatCount();
    const res = await t.http
      .post('/api/chats')
      .set('Cookie', cookie)
      .set('Origin', 'https://evil.example')
      .type('form')
      .send('title=pwned')
      .expect(403);
    expect(res.body).toEqual(FORBIDDEN);
    const noOrigin = await t.http
      .delete('/api/auth/sessions')
      .set('Cookie', cookie)
      .set('Sec-Fetch-Site', 'cross-site')
      .expect(403);
    expect(noOrigin.body).toEqual(FORBIDDEN);
    await t.http.post('/api/chats').set('Cookie', cookie).set('Origin', 'null').expect(403);
    expect(await chatCount()).toBe(before);
  });

  it('accepts the cookie from the own origin, CORS_ORIGINS, or without Origin', async () => {
    const before = await chatCount();
    for (const origin of ['https://console.example', 'https://partner.example', undefined]) {
      const req = t.http.post('/api/chats').set('Cookie', cookie).send({ title: 'ok' });
      if (origin) req.set('Origin', origin);
      await req.expect(201);
    }
    // The Host the request arrived on is the own origin too (a console on the same address).
    const server = t.http.post('/api/chats').set('Cookie', cookie).send({ title: 'same host' });
    const host = await server.set('Origin', 'http://127.0.0.1').set('Host', '127.0.0.1');
    expect(host.status).toBe(201);
    expect(await chatCount()).toBe(before + 4);
  });

  it('reads no session from a cross-site cookie on a public route: sign-out ends nothing', async () => {
    const res = await t.http
      .post('/api/auth/signout')
      .set('Cookie', cookie)
      .set('Origin', 'https://evil.example');
    expect(res.status).toBeLessThan(400);
    // The session the forged sign-out carried is still alive.
    await t.http.get('/api/chats').set('Cookie', cookie).expect(200);
  });

  it('leaves Bearer requests and cookie reads alone', async () => {
    await t.http
      .post('/api/chats')
      .set(u.auth)
      .set('Cookie', cookie)
      .set('Origin', 'https://evil.example')
      .send({ title: 'scripted' })
      .expect(201);
    await t.http
      .get('/api/chats')
      .set('Cookie', cookie)
      .set('Origin', 'https://evil.example')
      .expect(200);
  });
});
