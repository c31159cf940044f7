import { newUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

describe('platform: errors, health and API description', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const chatCount = async (userId: string) =>
    Number((await t.db.query('SELECT count(*) FROM chats WHERE "userId" = $1', [userId]))[0].count);

  it('answers malformed JSON with 400 MALFORMED_JSON in the route envelope, writing nothing', async () => {
    const u = await newUser(t);
    const b = await t.http
      .post('/api/chats')
      .set(u.auth)
      .set('content-type', 'application/json')
      .send('{"title": ')
      .expect(400);
    expect(b.body).toEqual({ success: false, error: expect.any(String), code: 'MALFORMED_JSON' });
    const c = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .set('content-type', 'application/json')
      .send('{oops}')
      .expect(400);
    expect(c.body).toEqual({ error: expect.any(String), code: 'MALFORMED_JSON' });
    expect(await chatCount(u.user.id)).toBe(0);
  });

  it('answers a body over 1 MB with 413 PAYLOAD_TOO_LARGE, writing nothing', async () => {
    const u = await newUser(t);
    const res = await t.http
      .post('/api/chats')
      .set(u.auth)
      .send({ title: 'x'.repeat(1_100_000) })
      .expect(413);
    expect(res.body).toEqual({
      success: false,
      error: expect.stringMatching(/1 MB/),
      code: 'PAYLOAD_TOO_LARGE',
    });
    expect(await chatCount(u.user.id)).toBe(0);
  });

  it('refuses unknown fields and wrong types with 400 VALIDATION_FAILED', async () => {
    const u = await newUser(t);
    const unknown = await t.http
      .post('/api/chats')
      .set(u.auth)
      .send({ title: 'ok', userId: 'x' })
      .expect(400);
    expect(unknown.body).toEqual({
      success: false,
      error: expect.stringMatching(/userId/),
      code: 'VALIDATION_FAILED',
    });
    const wrongType = await t.http.post('/api/chats').set(u.auth).send({ title: 42 }).expect(400);
    expect(wrongType.body.code).toBe('VALIDATION_FAILED');
    expect(await chatCount(u.user.id)).toBe(0);
  });

  it('answers unknown routes with 404 {error, code}', async () => {
    const res = await t.http.get('/api/no-such-route').expect(404);
    expect(res.body).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
  });

  it('answers unexpected failures with a generic 500, no stack or SQL', async () => {
    const u = await newUser(t);
    // Break the schema under the running app: the query fails inside PostgreSQL.
    await t.db.query('ALTER TABLE chats RENAME COLUMN title TO title_broken');
    try {
      const res = await t.http.post('/api/chats').set(u.auth).send({ title: 'x' }).expect(500);
      expect(res.body).toEqual({
        success: false,
        error: 'Internal server error',
        code: 'INTERNAL_ERROR',
      });
      expect(JSON.stringify(res.body)).not.toMatch(/title_broken|INSERT|at /);
    } finally {
      await t.db.query('ALTER TABLE chats RENAME COLUMN title_broken TO title');
    }
  });

  it('serves liveness and readiness', async () => {
    expect((await t.http.get('/health/live').expect(200)).body).toEqual({ status: 'ok' });
    const ready = await t.http.get('/health/ready').expect(200);
    expect(ready.body.info.database.status).toBe('up');
  });

  it('adds a request id to every answer, keeping a sane one sent by the client', async () => {
    const own = await t.http.get('/health/live').set('x-request-id', 'abc-123');
    expect(own.headers['x-request-id']).toBe('abc-123');
    const generated = await t.http.get('/health/live');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('describes every route in OpenAPI at /api/docs-json, with the UI at /api/docs', async () => {
    const doc = (await t.http.get('/api/docs-json').expect(200)).body;
    const paths = Object.keys(doc.paths);
    for (const p of [
      '/api/auth/signup',
      '/api/auth/login',
      '/api/auth/session',
      '/api/auth/providers',
      '/api/auth/signout',
      '/api/auth/sessions',
      '/api/auth/sessions/{id}',
      '/api/protected',
      '/api/users',
      '/api/users/{id}',
      '/api/user/profile',
      '/api/chats',
      '/api/chats/{id}',
      '/api/chats/{id}/messages',
      '/api/ai/models',
      '/api/ai/generate',
      '/health/live',
      '/health/ready',
    ]) {
      expect(paths).toContain(p);
    }
    expect(doc.components.securitySchemes).toHaveProperty('bearer');
    expect(doc.paths['/api/chats'].post.responses).toHaveProperty('401');
    // No operation lists a parameter twice (header names are case-insensitive).
    for (const [path, ops] of Object.entries<Record<string, { parameters?: unknown[] }>>(
      doc.paths,
    )) {
      for (const [method, op] of Object.entries(ops)) {
        const keys = (op.parameters ?? []).map((p) => {
          const { in: where, name } = p as { in: string; name: string };
          return `${where}:${where === 'header' ? name.toLowerCase() : name}`;
        });
        expect({ op: `${method} ${path}`, keys }).toEqual({
          op: `${method} ${path}`,
          keys: [...new Set(keys)],
        });
      }
    }
    const ui = await t.http.get('/api/docs').expect(200);
    expect(ui.text).toMatch(/swagger/i);
  });
});

describe('readiness when the database is down', () => {
  it('answers 503 NOT_READY', async () => {
    const t = await createTestApp();
    try {
      await t.db.destroy();
      const res = await t.http.get('/health/ready').expect(503);
      expect(res.body).toEqual(
        expect.objectContaining({ code: 'NOT_READY', error: expect.any(String) }),
      );
      await t.http.get('/health/live').expect(200);
    } finally {
      await t.close();
    }
  });
});
