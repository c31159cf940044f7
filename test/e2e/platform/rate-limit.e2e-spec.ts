import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { newUser, PASSWORD } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const email = (prefix = 'rl') => `${prefix}-${randomBytes(5).toString('hex')}@example.com`;

/** 429 `{error, code: "RATE_LIMITED"}` with a whole number of seconds in `Retry-After`. */
function expectRateLimited(res: Response): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: expect.any(String), code: 'RATE_LIMITED' });
  const retryAfter = res.headers['retry-after'];
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThan(0);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
}

/** One app per scenario: each has fresh in-memory counters (limit 3 per minute). */
async function withApp(env: Record<string, string>, run: (t: TestApp) => Promise<void>) {
  const t = await createTestApp({ AUTH_RATE_LIMIT_PER_MINUTE: '3', ...env });
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

describe('Rate limit on login and sign-up (AUTH_RATE_LIMIT_PER_MINUTE=3)', () => {
  it('blocks the 4th login from one IP within a minute, even with the right password', () =>
    withApp({}, async (t) => {
      const u = await newUser(t);
      for (let i = 0; i < 3; i++) {
        await t.http
          .post('/api/auth/login')
          .send({ email: email(), password: PASSWORD })
          .expect(401);
      }
      const res = await t.http
        .post('/api/auth/login')
        .send({ email: u.user.email, password: PASSWORD });
      expectRateLimited(res);
      expect(res.headers['set-cookie']).toBeUndefined();
    }));

  it('limits per email: with TRUST_PROXY, one email from 4 forwarded IPs is blocked at the 4th', () =>
    withApp({ TRUST_PROXY: 'true' }, async (t) => {
      const victim = email('victim');
      const spellings = [victim, victim.toUpperCase(), ` ${victim} `];
      for (const [i, spelling] of spellings.entries()) {
        await t.http
          .post('/api/auth/login')
          .set('X-Forwarded-For', `203.0.113.${i + 1}`)
          .send({ email: spelling, password: 'wrong password' })
          .expect(401);
      }
      const res = await t.http
        .post('/api/auth/login')
        .set('X-Forwarded-For', '203.0.113.4')
        .send({ email: victim, password: 'wrong password' });
      expectRateLimited(res);
      // Another account from a fresh IP is unaffected.
      await t.http
        .post('/api/auth/login')
        .set('X-Forwarded-For', '203.0.113.5')
        .send({ email: email(), password: 'wrong password' })
        .expect(401);
    }));

  it('with TRUST_PROXY, each forwarded IP has its own counter', () =>
    withApp({ TRUST_PROXY: 'true' }, async (t) => {
      for (let i = 1; i <= 5; i++) {
        await t.http
          .post('/api/auth/login')
          .set('X-Forwarded-For', `198.51.100.${i}`)
          .send({ email: email(), password: 'wrong password' })
          .expect(401);
      }
    }));

  it('without TRUST_PROXY, X-Forwarded-For is ignored: varying it does not reset the IP counter', () =>
    withApp({}, async (t) => {
      for (let i = 1; i <= 3; i++) {
        await t.http
          .post('/api/auth/login')
          .set('X-Forwarded-For', `198.51.100.${i}`)
          .send({ email: email(), password: 'wrong password' })
          .expect(401);
      }
      const res = await t.http
        .post('/api/auth/login')
        .set('X-Forwarded-For', '198.51.100.4')
        .send({ email: email(), password: 'wrong password' });
      expectRateLimited(res);
    }));

  it('limits sign-up too: the 4th from one IP is 429 and creates no user', () =>
    withApp({}, async (t) => {
      for (let i = 0; i < 3; i++) {
        await t.http
          .post('/api/auth/signup')
          .send({ email: email('new'), password: PASSWORD })
          .expect(201);
      }
      const blocked = email('blocked');
      const res = await t.http
        .post('/api/auth/signup')
        .send({ email: blocked, password: PASSWORD });
      expectRateLimited(res);
      const [{ n }] = await t.db.query('SELECT COUNT(*)::int AS n FROM users WHERE email = $1', [
        blocked,
      ]);
      expect(n).toBe(0);
    }));
});
