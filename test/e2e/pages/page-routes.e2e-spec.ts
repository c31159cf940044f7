import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'supertest';
import type { RouteDecision } from '../../../src/pages/route-rules';
import { newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitFor } from '../../support/wait';

type Who = 'none' | 'USER' | 'ADMIN';
const WHO: Who[] = ['none', 'USER', 'ADMIN'];
const ALLOW: RouteDecision = { action: 'allow' };
const NOT_FOUND: RouteDecision = { action: 'notFound' };
const to = (location: string): RouteDecision => ({ action: 'redirect', location });
const signin = (locale: string, callback: string) =>
  to(`/${locale}/auth/signin?callbackUrl=${encodeURIComponent(callback)}`);

/** Page paths × session (none, USER, ADMIN) → the spec's decision (Authentication 7 and 8). */
const TABLE: [string, RouteDecision, RouteDecision, RouteDecision][] = [
  ['/', to('/en'), to('/en'), to('/en')],
  [
    '/dashboard?tab=usage',
    to('/en/dashboard?tab=usage'),
    to('/en/dashboard?tab=usage'),
    to('/en/dashboard?tab=usage'),
  ],
  ['/admin/users', to('/en/admin/users'), to('/en/admin/users'), to('/en/admin/users')],
  ['/auth/signin', to('/en/auth/signin'), to('/en/auth/signin'), to('/en/auth/signin')],
  ['/en', ALLOW, ALLOW, ALLOW],
  ['/zh/pricing', ALLOW, ALLOW, ALLOW],
  ['/fr', NOT_FOUND, NOT_FOUND, NOT_FOUND],
  ['/de/dashboard', NOT_FOUND, NOT_FOUND, NOT_FOUND],
  ['/en/dashboard', signin('en', '/en/dashboard'), ALLOW, ALLOW],
  [
    '/zh/dashboard/settings?tab=billing&x=%20y',
    signin('zh', '/zh/dashboard/settings?tab=billing&x=%20y'),
    ALLOW,
    ALLOW,
  ],
  ['/en/admin', to('/en/unauthorized'), to('/en/unauthorized'), ALLOW],
  ['/zh/admin/users', to('/zh/unauthorized'), to('/zh/unauthorized'), ALLOW],
  ['/en/Admin/users', to('/en/unauthorized'), to('/en/unauthorized'), ALLOW],
  ['/en/%2e%2e/en/admin', to('/en/unauthorized'), to('/en/unauthorized'), ALLOW],
  ['/en/auth/signin', ALLOW, ALLOW, ALLOW],
  ['/zh/auth/signup', ALLOW, ALLOW, ALLOW],
  ['/en/unauthorized', ALLOW, ALLOW, ALLOW],
  ['/zh/payment/success', ALLOW, ALLOW, ALLOW],
];

/** Paths the page rules skip: /api/route-access answers `allow`, the page router leaves them. */
const NON_PAGES = ['/api/users', '/_next/static/app.js', '/uploads/1-a.png', '/favicon.ico'];

/** Asserts the page router's HTTP answer matches `decision`. */
function expectAnswer(res: Response, decision: RouteDecision): void {
  if (decision.action === 'redirect') {
    expect(res.status).toBe(307);
    expect(res.headers.location).toBe(decision.location);
  } else if (decision.action === 'notFound') {
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
  } else {
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  }
}

describe('Page routes', () => {
  let t: TestApp;
  const users: Partial<Record<Who, TestUser>> = {};
  const cookie = (who: Who) =>
    who === 'none' ? {} : { Cookie: `session_token=${users[who]!.token}` };
  const bearer = (who: Who) => (who === 'none' ? {} : users[who]!.auth);

  beforeAll(async () => {
    t = await createTestApp();
    users.USER = await newUser(t, { role: 'USER' });
    users.ADMIN = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(() => t.close());

  describe.each(WHO)('with session %s', (who) => {
    const i = WHO.indexOf(who) + 1;
    const rows = TABLE.map((row) => [row[0], row[i]] as [string, RouteDecision]);

    it.each(rows)('the page router answers GET %s', async (path, decision) => {
      expectAnswer(await t.http.get(path).set(cookie(who)), decision);
    });

    it.each(rows)('GET /api/route-access?path=%s answers the same', async (path, decision) => {
      const res = await t.http.get('/api/route-access').query({ path }).set(bearer(who));
      expect(res.status).toBe(200);
      expect(res.body).toEqual(decision);
    });

    it('route-access allows paths that are not pages', async () => {
      for (const path of NON_PAGES) {
        const res = await t.http.get('/api/route-access').query({ path }).set(cookie(who));
        expect(res.body).toEqual(ALLOW);
      }
    });
  });

  it('picks /zh for unprefixed paths when Accept-Language prefers Chinese', async () => {
    const zh = { 'Accept-Language': 'zh-CN,zh;q=0.9,en;q=0.8' };
    const root = await t.http.get('/').set(zh).expect(307);
    expect(root.headers.location).toBe('/zh');
    expect(root.headers.vary).toContain('Accept-Language');
    const dash = await t.http.get('/dashboard?x=1').set(zh).expect(307);
    expect(dash.headers.location).toBe('/zh/dashboard?x=1');
    const api = await t.http.get('/api/route-access').query({ path: '/admin' }).set(zh);
    expect(api.body).toEqual(to('/zh/admin'));
  });

  it('serves a placeholder naming the page, escaping what it echoes', async () => {
    const res = await t.http.get('/en/dashboard/settings').set(cookie('USER')).expect(200);
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).toContain('<h1>/en/dashboard/settings</h1>');
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    const evil = await t.http.get('/zh/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E').expect(200);
    expect(evil.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(evil.text).not.toContain('<img');
  });

  it('reads the role from the database, and treats a bad token as no session', async () => {
    const u = await newUser(t);
    await t.http.get('/en/admin').set(u.auth).expect(307);
    // Changed behind the service's back: PostgreSQL notifies every process (the session cache
    // drops the user) as the change commits, so a request soon sees it (wait for delivery).
    await t.db.query(`UPDATE users SET role = 'ADMIN' WHERE id = $1`, [u.user.id]);
    const admitted = async () => (await t.http.get('/en/admin').set(u.auth)).status === 200;
    expect(await waitFor(admitted)).toBe(true);
    const bad = { Cookie: 'session_token=not-a-token' };
    const res = await t.http.get('/en/dashboard').set(bad).expect(307);
    expect(res.headers.location).toBe('/en/auth/signin?callbackUrl=%2Fen%2Fdashboard');
    const api = await t.http.get('/api/route-access').query({ path: '/en/admin' }).set(bad);
    expect(api.body).toEqual(to('/en/unauthorized'));
  });

  it('answers 400 for a missing or invalid path', async () => {
    const bad = [
      '',
      '?path=en/admin',
      '?path=https%3A%2F%2Fevil.example%2F',
      '?path=%2Fen%2F%25ZZ',
    ];
    for (const query of [...bad, '?path=/a&path=/b', `?path=/${'a'.repeat(2100)}`]) {
      const res = await t.http.get(`/api/route-access${query}`).expect(400);
      expect(res.body).toEqual({ error: expect.any(String), code: 'VALIDATION_FAILED' });
    }
  });

  it('leaves API, health, docs, uploads and other non-page paths to their routes', async () => {
    const unknown = await t.http.get('/api/unknown').expect(404);
    expect(unknown.body).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
    const unknownAdmin = await t.http.get('/api/admin/x').set(cookie('ADMIN')).expect(404);
    expect(unknownAdmin.body.code).toBe('NOT_FOUND');
    await t.http.get('/health/live').expect(200, { status: 'ok' });
    await t.http.get('/api/docs-json').expect(200);
    await t.http.get('/api/protected').expect(401);
    await t.http.get('/api/protected').set(bearer('USER')).expect(200);
    const upload = await t.http.get('/uploads/1700000000000-missing.png').expect(404);
    expect(upload.headers['content-type']).toContain('application/json');
    for (const path of ['/favicon.ico', '/_next/static/app.js', '/health']) {
      const res = await t.http.get(path).expect(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    // Only GET is a page request.
    const post = await t.http.post('/en/dashboard').expect(404);
    expect(post.body.code).toBe('NOT_FOUND');
  });

  it('keeps the payment success page and its 302 redirect', async () => {
    const page = await t.http.get('/zh/payment/success').expect(200);
    expect(page.text).toContain('支付成功');
    const plain = await t.http.get('/payment/success?a=1').expect(302);
    expect(plain.headers.location).toBe('/en/payment/success?a=1');
  });
});

describe('Page routes served from FRONTEND_DIR', () => {
  let t: TestApp;
  let base: string;
  let admin: TestUser;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'frontend-'));
    const dir = join(base, 'site');
    const files: Record<string, string> = {
      'index.html': '<p>spa shell</p>',
      'en/dashboard.html': '<p>en dashboard</p>',
      'en/admin/index.html': '<p>en admin</p>',
      '_next/static/app.js': 'console.log("app")',
      'favicon.ico': 'icon',
      '.env': 'SECRET=frontend-dotfile',
    };
    for (const [name, body] of Object.entries(files)) {
      await mkdir(join(dir, name, '..'), { recursive: true });
      await writeFile(join(dir, name), body);
    }
    await writeFile(join(base, 'secret.txt'), 'TOP-SECRET outside the frontend');
    await writeFile(join(base, 'secret.html'), 'TOP-SECRET outside the frontend');
    await symlink(join(base, 'secret.html'), join(dir, 'en', 'leak.html'));
    t = await createTestApp({ FRONTEND_DIR: dir });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(async () => {
    await t.close();
    await rm(base, { recursive: true, force: true });
  });

  it('serves the page file after the rules: <path>.html, <path>/index.html, else index.html', async () => {
    const dash = await t.http.get('/en/dashboard').set(admin.auth).expect(200);
    expect(dash.text).toBe('<p>en dashboard</p>');
    expect(dash.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(dash.headers['cache-control']).toBe('private, no-store');
    const adminPage = await t.http.get('/en/admin/').set(admin.auth).expect(200);
    expect(adminPage.text).toBe('<p>en admin</p>');
    const shell = await t.http.get('/zh/admin/users').set(admin.auth).expect(200);
    expect(shell.text).toBe('<p>spa shell</p>');
    // The rules still come first.
    const anon = await t.http.get('/en/dashboard').expect(307);
    expect(anon.headers.location).toBe('/en/auth/signin?callbackUrl=%2Fen%2Fdashboard');
    await t.http.get('/fr/dashboard').expect(404);
  });

  it('serves frontend assets, and still leaves /api to the API', async () => {
    const js = await t.http.get('/_next/static/app.js').expect(200);
    expect(js.headers['content-type']).toContain('javascript');
    await t.http.get('/favicon.ico').expect(200);
    await t.http.get('/_next/static/missing.js').expect(404);
    const unknown = await t.http.get('/api/unknown').expect(404);
    expect(unknown.body).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
    await t.http.get('/health/live').expect(200);
  });

  it('never serves a file outside FRONTEND_DIR or a dotfile', async () => {
    const attempts = [
      '/_next/..%2F..%2Fsecret.txt',
      '/_next/%2e%2e/%2e%2e/secret.txt',
      '/..%2Fsecret.txt',
      '/%2e%2e%2fsecret.txt',
      '/en/..%5C..%5Csecret.txt',
      '/en/leak.html',
      '/en/leak',
      '/.env',
      '/en/%2eenv',
    ];
    for (const path of attempts) {
      const res = await t.http.get(path).set(admin.auth);
      expect(res.text).not.toContain('TOP-SECRET');
      expect(res.text).not.toContain('frontend-dotfile');
      expect([200, 400, 404]).toContain(res.status);
    }
    // The symlinked page is refused; the SPA shell answers instead.
    const leak = await t.http.get('/en/leak').set(admin.auth).expect(200);
    expect(leak.text).toBe('<p>spa shell</p>');
  });
});
