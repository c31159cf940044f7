import { uniqueEmail } from '../../support/accounts';
import { newUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * The mailed-link routes send mail on request, so they are limited like login
 * (AUTH_RATE_LIMIT_PER_MINUTE=3 here): per email or session user, and per client IP.
 */
describe('Rate limits of the mailed-link routes (AUTH_RATE_LIMIT_PER_MINUTE=3, TRUST_PROXY)', () => {
  let t: TestApp;
  const from = (ip: number) => ({ 'X-Forwarded-For': `198.51.100.${ip}` });

  beforeEach(async () => {
    t = await createTestApp({ AUTH_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: 'true' });
  });
  afterEach(() => t.close());

  it('password/forgot: one address from 4 IPs is refused at the 4th; another address is not', async () => {
    const email = uniqueEmail('target');
    for (const ip of [1, 2, 3])
      await t.http.post('/api/auth/password/forgot').set(from(ip)).send({ email }).expect(202);
    const refused = await t.http
      .post('/api/auth/password/forgot')
      .set(from(4))
      .send({ email: email.toUpperCase() })
      .expect(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    await t.http
      .post('/api/auth/password/forgot')
      .set(from(5))
      .send({ email: uniqueEmail() })
      .expect(202);
  });

  it('password/forgot: one IP is refused at the 4th address', async () => {
    for (let i = 0; i < 3; i++)
      await t.http
        .post('/api/auth/password/forgot')
        .set(from(9))
        .send({ email: uniqueEmail() })
        .expect(202);
    await t.http
      .post('/api/auth/password/forgot')
      .set(from(9))
      .send({ email: uniqueEmail() })
      .expect(429);
  });

  it('verify-email/resend: one user from 4 IPs is refused at the 4th; another user is not', async () => {
    const u = await newUser(t, { verified: false });
    for (const ip of [1, 2, 3])
      await t.http.post('/api/auth/verify-email/resend').set(u.auth).set(from(ip)).expect(202);
    await t.http.post('/api/auth/verify-email/resend').set(u.auth).set(from(4)).expect(429);
    const other = await newUser(t, { verified: false });
    await t.http.post('/api/auth/verify-email/resend').set(other.auth).set(from(5)).expect(202);
  });

  it('verify-email/resend: one IP is refused at the 4th user', async () => {
    const users = await Promise.all([1, 2, 3, 4].map(() => newUser(t, { verified: false })));
    for (const u of users.slice(0, 3))
      await t.http.post('/api/auth/verify-email/resend').set(u.auth).set(from(7)).expect(202);
    await t.http.post('/api/auth/verify-email/resend').set(users[3].auth).set(from(7)).expect(429);
  });
});
